import Foundation

/// A strict RFC 8259 parser straight from bytes into `JSON`. Request bodies of 200 records are the hot path
/// of `records/modify`; `JSONDecoder` with a trial-and-error `Decodable` took several times longer than the
/// store needs to write them. Depth is bounded so a hostile body cannot exhaust the stack.
struct JSONParser {
    static let maximumDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    struct Failure: Error {}

    static func parse(_ data: Data) throws(Failure) -> JSON {
        let result: Result<JSON, Failure> = data.withUnsafeBytes { raw in
            var p = JSONParser(raw.bindMemory(to: UInt8.self))
            return Result { () throws(Failure) -> JSON in
                p.skipSpace()
                let v = try p.value(depth: 0)
                p.skipSpace()
                guard p.i == p.bytes.count else { throw Failure() }
                return v
            }
        }
        return try result.get()
    }

    private mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    private mutating func value(depth: Int) throws(Failure) -> JSON {
        guard i < bytes.count, depth < Self.maximumDepth else { throw Failure() }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let n = word.utf8CodeUnitCount
        guard i + n <= bytes.count else { throw Failure() }
        let w = word.utf8Start
        for k in 0..<n where bytes[i + k] != w[k] { throw Failure() }
        i += n
    }

    private mutating func object(depth: Int) throws(Failure) -> JSON {
        i += 1
        var o: [String: JSON] = [:]
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
        while true {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw Failure() }
            let k = try string()
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw Failure() }
            i += 1
            skipSpace()
            o[k] = try value(depth: depth + 1)
            skipSpace()
            guard i < bytes.count else { throw Failure() }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            throw Failure()
        }
    }

    private mutating func array(depth: Int) throws(Failure) -> JSON {
        i += 1
        var a: [JSON] = []
        skipSpace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
        while true {
            skipSpace()
            a.append(try value(depth: depth + 1))
            skipSpace()
            guard i < bytes.count else { throw Failure() }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            throw Failure()
        }
    }

    private mutating func string() throws(Failure) -> String {
        i += 1
        let start = i
        // The common case: no escapes, so the bytes are the string.
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let s = try validated(UnsafeBufferPointer(rebasing: bytes[start..<i]))
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw Failure() }
            i += 1
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                return try out.withUnsafeBufferPointer { buf throws(Failure) in try validated(buf) }
            case UInt8(ascii: "\\"):
                guard i + 1 < bytes.count else { throw Failure() }
                let e = bytes[i + 1]
                i += 2
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by an escaped low one.
                        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { throw Failure() }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Failure() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) { throw Failure() }
                    guard let u = Unicode.Scalar(scalar) else { throw Failure() }
                    out.append(contentsOf: UTF8.encode(u)!)
                default: throw Failure()
                }
            default:
                if b < 0x20 { throw Failure() }
                out.append(b)
                i += 1
            }
        }
        throw Failure()
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard i + 4 <= bytes.count else { throw Failure() }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw Failure()
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    /// Invalid UTF-8 is refused, as `JSONDecoder` does, rather than repaired.
    private func validated(_ buf: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        guard let s = String(validating: buf, as: UTF8.self) else { throw Failure() }
        return s
    }

    /// Integers without fraction or exponent are `.int` (when they fit); anything else a finite `.double`.
    private mutating func number() throws(Failure) -> JSON {
        let start = i
        var integral = true
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else { throw Failure() }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else {
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else { throw Failure() }
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) else { throw Failure() }
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<i])
        if integral, let v = Self.int64(text) { return .int(v) }
        guard let d = Double(String(decoding: text, as: UTF8.self)), d.isFinite else { throw Failure() }
        return .double(d)
    }

    /// Digits to Int64 without a String; nil on overflow (the caller falls back to Double).
    private static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var k = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { k = 1 }
        var v: Int64 = 0
        while k < text.count {
            let d = Int64(text[k] - UInt8(ascii: "0"))
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            v = s
            k += 1
        }
        return v
    }
}
