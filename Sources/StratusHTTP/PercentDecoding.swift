/// Percent-decoding of URL paths and form/query values, on bytes. Foundation's `removingPercentEncoding`
/// goes through CFString and was a visible share of every request; this gives the same answers (nil for a
/// malformed escape or for bytes that are not UTF-8).
public enum PercentDecoding {
    public static func decode<S: StringProtocol>(_ s: S, plusAsSpace: Bool = false) -> String? {
        var fast = true
        for b in s.utf8 where b == UInt8(ascii: "%") || (plusAsSpace && b == UInt8(ascii: "+")) { fast = false; break }
        if fast { return String(s) }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        var it = s.utf8.makeIterator()
        while let b = it.next() {
            switch b {
            case UInt8(ascii: "%"):
                guard let h = it.next().flatMap(ASCIIHex.value), let l = it.next().flatMap(ASCIIHex.value) else { return nil }
                out.append(h << 4 | l)
            case UInt8(ascii: "+") where plusAsSpace: out.append(UInt8(ascii: " "))
            default: out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A path segment percent-encoded: unreserved characters as they are, every other byte as `%XX`.
    public static func encodeSegment(_ s: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): out.append(b)
            default: out += [UInt8(ascii: "%"), digits[Int(b >> 4)], digits[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
