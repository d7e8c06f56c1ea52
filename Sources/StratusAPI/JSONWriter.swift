import Foundation

/// Builds JSON text directly into a byte buffer. Responses of 200 records are the hot path of the API;
/// writing them here is several times faster than going through `JSONSerialization` or `JSONEncoder`.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    public var data: Data { Data(bytes) }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    public mutating func beginObject() { separate(); bytes.append(UInt8(ascii: "{")); needsComma.append(false) }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma.removeLast() }
    public mutating func beginArray() { separate(); bytes.append(UInt8(ascii: "[")); needsComma.append(false) }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma.removeLast() }

    /// Writes `"key":` — the next value written belongs to it.
    public mutating func key(_ k: String) {
        separate()
        writeString(k)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    public mutating func string(_ s: String) { separate(); writeString(s) }
    public mutating func int(_ i: Int64) { separate(); writeInt(i) }

    /// Digits straight into the buffer, without a temporary String.
    private mutating func writeInt(_ i: Int64) {
        if i == 0 { bytes.append(UInt8(ascii: "0")); return }
        if i == .min { bytes.append(contentsOf: "-9223372036854775808".utf8); return }
        var v = i
        if v < 0 { bytes.append(UInt8(ascii: "-")); v = -v }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            while v > 0 { buf[n] = UInt8(48 + v % 10); v /= 10; n += 1 }
            for k in stride(from: n - 1, through: 0, by: -1) { bytes.append(buf[k]) }
        }
    }
    public mutating func bool(_ b: Bool) { separate(); bytes.append(contentsOf: (b ? "true" : "false").utf8) }
    public mutating func null() { separate(); bytes.append(contentsOf: "null".utf8) }
    public mutating func double(_ d: Double) {
        separate()
        guard d.isFinite else { bytes.append(contentsOf: "null".utf8); return }
        if d == d.rounded() && abs(d) < 1e15 { bytes.append(contentsOf: String(Int64(d)).utf8); bytes.append(contentsOf: ".0".utf8) } else {
            bytes.append(contentsOf: "\(d)".utf8)
        }
    }

    public mutating func field(_ k: String, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: String, _ v: Int64) { key(k); int(v) }
    public mutating func field(_ k: String, _ v: Bool) { key(k); bool(v) }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole.
        var s = s
        let copied: Bool = s.withUTF8 { buf in
            for b in buf where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b == UInt8(ascii: "<") || b == UInt8(ascii: ">") {
                return false
            }
            bytes.append(contentsOf: buf)
            return true
        }
        if copied { bytes.append(UInt8(ascii: "\"")); return }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\")); bytes.append(b)
            case 0x0A: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "\\")); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"):
                // Control characters, and < > so a JSON response can never be read as markup.
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(JSONWriter.hexDigits[Int(b >> 4)])
                bytes.append(JSONWriter.hexDigits[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONWriter {
    /// Writes a parsed JSON value back out (keys sorted, so equal documents serialize alike).
    public mutating func value(_ j: JSON) {
        switch j {
        case .null: null()
        case .bool(let b): bool(b)
        case .int(let i): int(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let a): beginArray(); for x in a { value(x) }; endArray()
        case .object(let o):
            beginObject()
            for k in o.keys.sorted() { key(k); value(o[k]!) }
            endObject()
        }
    }
}

extension JSON {
    public var serialized: String {
        var w = JSONWriter(capacity: 256)
        w.value(self)
        return String(decoding: w.bytes, as: UTF8.self)
    }
}
