import StratusModel

/// Turns one input into a nearby one: bit flips, interesting bytes and numbers, deletions, insertions, repeats,
/// tokens of the target's own language, splices with another input. Deterministic for a seed, so a run can be
/// repeated.
struct Mutator {
    private var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed &+ 0x9E37_79B9_7F4A_7C15) }

    mutating func next() -> UInt64 { random.next() }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    static let interestingBytes: [UInt8] = [0, 1, 9, 10, 13, 32, 34, 37, 39, 43, 44, 45, 46, 47, 48, 57, 58, 59, 61, 63,
                                            64, 91, 92, 93, 123, 125,
                                            0x7f, 0x80, 0xbf, 0xc0, 0xef, 0xff]
    static let interestingTokens: [[UInt8]] = [
        "-1", "+1", "0", "-0", " -1 ", "00000000000000000001", "99999999999999999999", "9223372036854775807", "-9223372036854775808",
        "18446744073709551616", "4294967296", "ffffffff", "fffffffff", "-fffffff", "1e308", "1e-400", "-1e309", "NaN", "Infinity", "0x10", "0.5",
        "%", "%%", "%2", "%zz", "%00", "%EF%BC%90", "%C0%80", "%FF", "\u{FF10}", "\u{0660}", "\r\n", "\n", "\r", "\0", "\t", "\"", "\\", "\\u",
        "\\ud800", "\\udc00\\ud800", "\\u0000", "{", "}", "[", "]", "[[[[[[[[[[", "{\"a\":", "null", "true", ",", ":", "/", "//", "/../", "*", "?",
        "&", "=", ";", "'", "`", "<", ">", "é", "\u{202E}", "\u{1F600}",
    ].map { Array($0.utf8) } + [[0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff, 0xfe]]

    /// One to four mutations of `input`, no longer than `maxLength`.
    mutating func mutate(_ input: [UInt8], dictionary: [[UInt8]], other: [UInt8], maxLength: Int) -> [UInt8] {
        var out = input
        for _ in 0..<(1 + below(4)) {
            mutateOnce(&out, dictionary: dictionary, other: other)
        }
        if out.count > maxLength { out.removeLast(out.count - maxLength) }
        return out
    }

    private mutating func token(_ dictionary: [[UInt8]]) -> [UInt8] {
        let all = dictionary.isEmpty || below(3) == 0 ? Self.interestingTokens : dictionary
        return all[below(all.count)]
    }

    private mutating func mutateOnce(_ b: inout [UInt8], dictionary: [[UInt8]], other: [UInt8]) {
        let at = below(b.count + 1)
        switch below(11) {
        case 0 where !b.isEmpty: b[min(at, b.count - 1)] ^= UInt8(1 << below(8))
        case 1 where !b.isEmpty: b[min(at, b.count - 1)] = Self.interestingBytes[below(Self.interestingBytes.count)]
        case 2 where !b.isEmpty:
            let n = min(1 + below(16), b.count - min(at, b.count - 1))
            b.removeSubrange(min(at, b.count - 1)..<(min(at, b.count - 1) + n))
        case 3: b.insert(contentsOf: (0..<(1 + below(8))).map { _ in UInt8(truncatingIfNeeded: next()) }, at: at)
        case 4 where !b.isEmpty:
            let start = below(b.count), n = min(1 + below(32), b.count - start)
            let piece = Array(b[start..<(start + n)])
            for _ in 0..<(1 + below(8)) { b.insert(contentsOf: piece, at: min(at, b.count)) }
        case 5, 6: b.insert(contentsOf: token(dictionary), at: at)
        case 7 where !b.isEmpty:
            let start = below(b.count), n = min(1 + below(8), b.count - start)
            b.replaceSubrange(start..<(start + n), with: token(dictionary))
        case 8 where !other.isEmpty:
            let cut = below(b.count + 1), from = below(other.count)
            b = Array(b[..<cut]) + other[from...]
        case 9:
            // A run of digits becomes an interesting number.
            let digits = b.indices.filter { (48...57).contains(b[$0]) }
            if let i = digits.isEmpty ? nil : digits[below(digits.count)] {
                var end = i
                while end < b.count, (48...57).contains(b[end]) || (97...102).contains(b[end]) { end += 1 }
                b.replaceSubrange(i..<end, with: Self.interestingTokens[below(12)])
            } else {
                b.insert(contentsOf: Self.interestingTokens[below(12)], at: at)
            }
        default:
            // A token of the target's language, swapped for another one where it occurs.
            guard !dictionary.isEmpty else { b.insert(UInt8(truncatingIfNeeded: next()), at: at); return }
            let t = dictionary[below(dictionary.count)]
            if let r = Self.find(t, in: b) { b.replaceSubrange(r,
                                                               with: token(dictionary)) } else { b.insert(contentsOf: t,
                    at: at) }
        }
    }

    static func find(_ needle: [UInt8], in hay: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= hay.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<(i + needle.count)]) == needle {
            return i..<(i + needle.count)
        }
        return nil
    }
}
