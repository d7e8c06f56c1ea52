import Foundation

/// The CBOR (RFC 8949) WebAuthn writes attestation objects and COSE keys in, as far as they use it: integers, byte
/// and text strings, arrays, maps, `true`/`false`/`null`. Definite lengths only, at most 8 levels deep, every
/// length checked against the bytes there are before anything is allocated; anything else is not CBOR here (nil),
/// so a hostile authenticator's bytes cost no more than their own size.
indirect enum CBOR: Hashable, Sendable {
    case unsigned(UInt64)
    /// -1 - n, as CBOR writes negative integers (so that no value overflows).
    case negative(UInt64)
    case bytes(Data)
    case text(String)
    case array([CBOR])
    case map([CBOR: CBOR])
    case bool(Bool)
    case null

    /// The first item of `data`, and where it ends.
    static func decode(_ data: Data) -> (item: CBOR, end: Int)? {
        var reader = Reader(bytes: [UInt8](data))
        guard let item = reader.item(depth: 0) else { return nil }
        return (item, reader.at)
    }

    /// The value as an integer, when it is one within Int64.
    var int: Int64? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n): n <= UInt64(Int64.max) ? -1 - Int64(n) : nil
        default: nil
        }
    }

    var data: Data? { if case .bytes(let d) = self { d } else { nil } }
    var string: String? { if case .text(let s) = self { s } else { nil } }
    subscript(_ key: CBOR) -> CBOR? { if case .map(let m) = self { m[key] } else { nil } }
    subscript(_ key: Int64) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }
    subscript(_ key: String) -> CBOR? { self[.text(key)] }

    private struct Reader {
        let bytes: [UInt8]
        var at = 0

        mutating func byte() -> UInt8? {
            guard at < bytes.count else { return nil }
            defer { at += 1 }
            return bytes[at]
        }

        /// The argument of an item's head: its value, length or count.
        mutating func argument(_ info: UInt8) -> UInt64? {
            switch info {
            case 0..<24: return UInt64(info)
            case 24, 25, 26, 27:
                let width = 1 << Int(info - 24)
                guard bytes.count - at >= width else { return nil }
                var n: UInt64 = 0
                for _ in 0..<width { n = n << 8 | UInt64(bytes[at]); at += 1 }
                return n
            default: return nil
            }
        }

        mutating func take(_ count: UInt64) -> ArraySlice<UInt8>? {
            guard count <= UInt64(bytes.count - at) else { return nil }
            defer { at += Int(count) }
            return bytes[at..<at + Int(count)]
        }

        mutating func item(depth: Int) -> CBOR? {
            guard depth < 8, let head = byte(), let n = argument(head & 0x1f) else { return nil }
            switch head >> 5 {
            case 0: return .unsigned(n)
            case 1: return .negative(n)
            case 2: return take(n).map { .bytes(Data($0)) }
            case 3: return take(n).flatMap { String(bytes: $0, encoding: .utf8) }.map(CBOR.text)
            case 4:
                // Each item takes at least a byte: a count past what is left is a lie.
                guard n <= UInt64(bytes.count - at) else { return nil }
                var items: [CBOR] = []
                for _ in 0..<n { guard let i = item(depth: depth + 1) else { return nil }; items.append(i) }
                return .array(items)
            case 5:
                guard n <= UInt64(bytes.count - at) / 2 else { return nil }
                var map: [CBOR: CBOR] = [:]
                for _ in 0..<n {
                    guard let k = item(depth: depth + 1), let v = item(depth: depth + 1),
                            map[k] == nil else { return nil }
                    map[k] = v
                }
                return .map(map)
            case 7:
                switch head & 0x1f {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: return nil
                }
            default: return nil
            }
        }
    }
}
