/// One CSV cell, as every CSV Stratus writes has it (`stratus records export --format csv`, the console's export)
/// and `stratus records import` reads it back: RFC 4180 quoting, and cells a spreadsheet would run as a formula
/// (a leading `=`, `+`, `-`, `@`, TAB or CR, OWASP's list) prefixed with `'`, which spreadsheets show as text.
/// A plain number such as `-5` is left as it is. So that the prefix never changes a value, a cell that starts
/// with `'` gets one too, and reading takes one leading `'` off: export then import gives the same values.
public enum CSVCell {
    public static func escape(_ s: String) -> String {
        var v = s
        if let f = v.unicodeScalars.first, f == "'" || ("=+-@\t\r".unicodeScalars.contains(f) && Double(v) == nil) { v = "'" + v }
        guard v.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return v }
        return "\"" + v.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A cell's value as `escape` wrote it (after RFC 4180 unquoting): without the leading `'`.
    public static func unescape(_ cell: String) -> String {
        cell.unicodeScalars.first == "'" ? String(cell.unicodeScalars.dropFirst()) : cell
    }
}
