/// ISO 8601 dates and times as clients type and send them, read on bytes: `2026-11-21`, `2026-11-21T10:30`,
/// `…:15`, `…:15.250` (up to nine fraction digits), with `T` or a space, and `Z`, `±HH:MM` or `±HHMM` (none is UTC).
/// Foundation's formatters are not used on a client's text: `DateFormatter` traps on some inputs (a combining mark
/// after a digit), which would stop the server.
public enum ISO8601Time {
    /// Milliseconds since 1970, or nil when `text` is not such a time (or its year is outside 1–9999).
    public static func millis(_ text: some StringProtocol) -> Int64? {
        let b = Array(text.utf8)
        guard b.count <= 40 else { return nil }
        var i = 0
        func number(_ digits: Int) -> Int64? {
            guard i + digits <= b.count else { return nil }
            var n: Int64 = 0
            for k in i..<(i + digits) {
                guard (48...57).contains(b[k]) else { return nil }
                n = n * 10 + Int64(b[k] - 48)
            }
            i += digits
            return n
        }
        func take(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), take(UInt8(ascii: "-")), let month = number(2), take(UInt8(ascii: "-")), let day = number(2),
              (1...9999).contains(year), (1...12).contains(month), (1...daysIn(month,
                      year)).contains(day) else { return nil }
        var hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, nanos: Int64 = 0, offset: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") || b[i] == UInt8(ascii: " ") {
            i += 1
            guard let h = number(2), take(UInt8(ascii: ":")), let m = number(2), h < 24, m < 60 else { return nil }
            (hour, minute) = (h, m)
            if take(UInt8(ascii: ":")) {
                guard let s = number(2), s < 60 else { return nil }
                second = s
                if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
                    var digits = 0
                    while i < b.count, (48...57).contains(b[i]) {
                        if digits < 9 { nanos = nanos * 10 + Int64(b[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard (1...9).contains(digits) else { return nil }
                    for _ in digits..<9 { nanos *= 10 }
                }
            }
            if take(UInt8(ascii: "Z")) || take(UInt8(ascii: "z")) {
            } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(2), oh < 24 else { return nil }
                _ = take(UInt8(ascii: ":"))
                guard let om = number(2), om < 60 else { return nil }
                offset = sign * (oh * 60 + om) * 60_000
            }
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year, month, day)
        return days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + nanos / 1_000_000 - offset
    }

    static func daysIn(_ month: Int64, _ year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    public static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
