/// Percent-decoding of URL paths and form/query values, on bytes. Foundation's `removingPercentEncoding`
/// goes through CFString and was a visible share of every request; this gives the same answers (nil for a
/// malformed escape or for bytes that are not UTF-8).
public enum PercentDecoding {
    public static func decode<S: StringProtocol>(_ s: S, plusAsSpace: Bool = false) -> String? {
        if let decoded = s.utf8.withContiguousStorageIfAvailable({ decode($0, plusAsSpace: plusAsSpace) }) { return decoded }
        return decode(Array(s.utf8), plusAsSpace: plusAsSpace)
    }

    /// The same for bytes that are UTF-8 already (a request's target is ASCII): a request decodes its path segments
    /// and the query parameters it reads this way, with no String made but the answer.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, plusAsSpace: Bool = false) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            switch b {
            case UInt8(ascii: "%"):
                guard i + 1 < bytes.count, let h = ASCIIHex.value(bytes[i]), let l = ASCIIHex.value(bytes[i + 1]) else {
                    return nil
                }
                out.append(h << 4 | l)
                i += 2
            case UInt8(ascii: "+") where plusAsSpace: out.append(UInt8(ascii: " "))
            default: out.append(b)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func decode(_ bytes: [UInt8], plusAsSpace: Bool) -> String? {
        bytes.withUnsafeBufferPointer { decode($0, plusAsSpace: plusAsSpace) }
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
