/// Hexadecimal as URLs and HTTP spell it: the ASCII digits `0-9a-fA-F` only. `Character.isHexDigit` also takes
/// fullwidth digits, and `Int(_:radix:)` takes a sign, so neither may judge a client's bytes.
public enum ASCIIHex {
    /// The value of one hex digit, or nil.
    @inline(__always)
    public static func value(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes a string of hex digit pairs spells, or nil when it holds anything else or an odd number of digits.
    public static func decode(_ s: some StringProtocol) -> [UInt8]? {
        let utf8 = s.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var it = utf8.makeIterator()
        while let h = it.next() {
            guard let hi = value(h), let l = it.next(), let lo = value(l) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// The number 1 to `maxDigits` hex digits spell (no sign, no spaces), or nil; `maxDigits` ≤ 15 keeps it in range.
    public static func integer(_ digits: some Collection<UInt8>, maxDigits: Int) -> Int? {
        guard !digits.isEmpty, digits.count <= min(maxDigits, 15) else { return nil }
        var n = 0
        for b in digits {
            guard let v = value(b) else { return nil }
            n = n << 4 | Int(v)
        }
        return n
    }
}
