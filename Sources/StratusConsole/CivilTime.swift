/// A UTC calendar date and time from milliseconds since 1970 (Howard Hinnant's days-from-civil inverse),
/// for the many timestamps a records page prints.
struct CivilTime {
    var year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64, millisecond: Int64

    init(_ millis: Int64) {
        let ms = ((millis % 86_400_000) + 86_400_000) % 86_400_000
        let days = (millis - ms) / 86_400_000
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        hour = ms / 3_600_000
        minute = ms / 60_000 % 60
        second = ms / 1000 % 60
        millisecond = ms % 1000
    }

    /// `YYYY-MM-DD␣HH:MM:SS.mmm` with the given separator between date and time.
    func text(separator: String) -> String {
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))\(separator)\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(millisecond, 3))"
    }
}
