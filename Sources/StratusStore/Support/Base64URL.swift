import Foundation

/// Base64url without padding (RFC 4648 §5), the alphabet of tokens and markers that travel in URLs and JSON.
/// Written over bytes because Foundation's encoder followed by three `replacingOccurrences` passes cost a
/// query page more than its marker's HMAC did.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let values: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        let count = (input.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: count) { out in
            var o = 0, i = 0
            while i + 3 <= input.count {
                let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                out[o] = alphabet[Int(n >> 18 & 63)]; out[o + 1] = alphabet[Int(n >> 12 & 63)]
                out[o + 2] = alphabet[Int(n >> 6 & 63)]; out[o + 3] = alphabet[Int(n & 63)]
                i += 3; o += 4
            }
            let rest = input.count - i
            if rest > 0 {
                let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                out[o] = alphabet[Int(n >> 18 & 63)]; out[o + 1] = alphabet[Int(n >> 12 & 63)]
                o += 2
                if rest == 2 { out[o] = alphabet[Int(n >> 6 & 63)]; o += 1 }
            }
            return o
        }
    }

    /// The bytes, or nil for any character outside the alphabet (padding included) or an impossible length.
    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3 / 4)
        var acc: UInt32 = 0, bits = 0
        for i in utf8.indices {
            let v = values[Int(utf8[i])]
            guard v != 0xFF else { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits))) }
        }
        // Leftover bits must be zero, so that each byte string has exactly one text.
        guard acc & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}
