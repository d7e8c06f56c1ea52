import Foundation

/// A strict RFC 8259 parser straight from bytes into `JSON`. Request bodies of 200 records are the hot path
/// of `records/modify`; `JSONDecoder` with a trial-and-error `Decodable` took several times longer than the
/// store needs to write them. Depth is bounded so a hostile body cannot exhaust the stack.
package struct JSONParser {
    package static let maximumDepth = 256

    package let bytes: UnsafeBufferPointer<UInt8>
    package var i = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    package struct Failure: Error {}

    package static func parse(_ data: Data) throws(Failure) -> JSON {
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

    package mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    package mutating func value(depth: Int) throws(Failure) -> JSON {
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

    // MARK: reading member by member

    /// Whether the next value is an object; when it is, its `{` is consumed and `nextKey` reads its members.
    /// A reader that knows the shape it wants (a record line) takes the members it needs without building the
    /// dictionaries of everything else.
    package mutating func openObject() -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return false }
        i += 1
        return true
    }

    /// The next member's key, the parser then at its value (which the caller must read or `skip`); nil once the
    /// object's `}` is consumed. `first` is true for the first call on an object.
    package mutating func nextKey(first: inout Bool) throws(Failure) -> String? {
        skipSpace()
        guard i < bytes.count else { throw Failure() }
        if bytes[i] == UInt8(ascii: "}") {
            first = false
            i += 1
            return nil
        }
        if !first {
            guard bytes[i] == UInt8(ascii: ",") else { throw Failure() }
            i += 1
            skipSpace()
        }
        first = false
        // After a comma another member must follow: `{"a":1,}` is not JSON.
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw Failure() }
        let key = try string()
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw Failure() }
        i += 1
        skipSpace()
        return key
    }

    /// Checks the rest of the input is only white space.
    package mutating func end() throws(Failure) {
        skipSpace()
        guard i == bytes.count else { throw Failure() }
    }

    /// Reads past one value, as strictly as `value` parses it, without building it.
    package mutating func skip(depth: Int) throws(Failure) {
        guard i < bytes.count, depth < Self.maximumDepth else { throw Failure() }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var first = true
            while try nextKey(first: &first) != nil { try skip(depth: depth + 1) }
        case UInt8(ascii: "["):
            i += 1
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return }
            while true {
                skipSpace()
                try skip(depth: depth + 1)
                skipSpace()
                guard i < bytes.count else { throw Failure() }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return }
                throw Failure()
            }
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try number()
        }
    }

    /// Whether the next value is `null` (consumed when it is).
    package mutating func takeNull() throws(Failure) -> Bool {
        skipSpace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
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
        var first = true
        while let k = try nextKey(first: &first) { o[k] = try value(depth: depth + 1) }
        return .object(o)
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

    package mutating func string() throws(Failure) -> String {
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

    /// Invalid UTF-8 is refused, as `JSONDecoder` does, rather than repaired. Text that is all ASCII (keys, names,
    /// most values) is valid as it stands and takes the direct path: `String(validating:as:)` is generic over the
    /// encoding and looked up its metadata on every call, the largest single cost of reading an import line.
    private func validated(_ buf: UnsafeBufferPointer<UInt8>) throws(Failure) -> String {
        if Self.isASCII(buf) { return String(decoding: buf, as: UTF8.self) }
        guard let s = String(validating: buf, as: UTF8.self) else { throw Failure() }
        return s
    }

    /// Eight bytes at a time while it can.
    private static func isASCII(_ buf: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buf.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var k = 0
        while k + 8 <= buf.count {
            if raw.loadUnaligned(fromByteOffset: k, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            k += 8
        }
        while k < buf.count {
            if buf[k] >= 0x80 { return false }
            k += 1
        }
        return true
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
