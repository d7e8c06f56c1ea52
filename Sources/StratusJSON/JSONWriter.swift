import Foundation

/// Builds JSON text directly into a byte buffer. Responses of 200 records are the hot path of the API;
/// writing them here is several times faster than going through `JSONSerialization` or `JSONEncoder`.
/// The buffer is raw memory owned by one writer (appends without uniqueness checks), and a single
/// "a value came before" flag replaces a stack: every container opened is a value of its parent once closed.
public struct JSONWriter {
    private let buffer: JSONBuffer
    private var needsComma = false

    public init(capacity: Int = 4096) { buffer = JSONBuffer(capacity: capacity) }

    public var bytes: [UInt8] { buffer.array }
    /// The text written so far. Hands the buffer's memory to the Data (no copy of a 200 KB page); the writer is
    /// empty afterwards and keeps its place in the text (the next value still knows whether a comma comes first), so
    /// a long answer can be taken in pieces (a mark taken before is void).
    public var data: Data { buffer.takeData() }
    /// Bytes written so far.
    public var count: Int { buffer.count }

    /// Ends a line of NDJSON: the next value starts a new top-level value, with no comma before it.
    public mutating func endLine() {
        buffer.append(0x0A)
        needsComma = false
    }

    @inline(__always) private mutating func separate() {
        if needsComma { buffer.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func beginObject() { separate(); buffer.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { buffer.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { separate(); buffer.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { buffer.append(UInt8(ascii: "]")); needsComma = true }

    /// Writes `"key":` — the next value written belongs to it.
    @_disfavoredOverload public mutating func key(_ k: String) {
        separate()
        writeString(k)
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key written in our source: copied as it is. Such keys are plain names (checked in debug builds); a
    /// key that could need escaping goes through `key(_: String)`.
    public mutating func key(_ k: StaticString) {
        separate()
        writeStatic(k)
        buffer.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Text from our source, quoted as it is (checked in debug builds to need no escaping).
    @inline(__always) private mutating func writeStatic(_ s: StaticString) {
        let bytes = UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
        assert(!bytes.contains(where: JSONWriter.needsEscape), "static JSON text \(s) needs escaping")
        buffer.append(UInt8(ascii: "\""))
        buffer.append(bytes)
        buffer.append(UInt8(ascii: "\""))
    }

    public mutating func string(_ s: String) { separate(); writeString(s) }
    /// UTF-8 text as a JSON string (escaped like any other).
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) { separate(); writeString(utf8) }
    public mutating func int(_ i: Int64) { separate(); buffer.appendDecimal(i) }
    public mutating func bool(_ b: Bool) { separate(); b ? buffer.append("true") : buffer.append("false") }
    public mutating func null() { separate(); buffer.append("null") }
    public mutating func double(_ d: Double) {
        separate()
        guard d.isFinite else { buffer.append("null"); return }
        if d == d.rounded() && abs(d) < 1e15 { buffer.appendDecimal(Int64(d)); buffer.append(".0") } else {
            var text = d.description
            text.withUTF8 { buffer.append($0) }
        }
    }

    /// A double as `double(_:)` writes it — `3.0` for a whole one, so a reader keeps it a double; `null` when not
    /// finite — for the server's other JSON writers (notification payloads), so every answer spells numbers alike.
    public static func text(of d: Double) -> String {
        guard d.isFinite else { return "null" }
        return d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) + ".0" : d.description
    }

    /// Where the text stands, to go back to if what follows must not be sent after all.
    public struct Mark {
        fileprivate let count: Int
        fileprivate let needsComma: Bool
    }

    public func mark() -> Mark { Mark(count: buffer.count, needsComma: needsComma) }

    /// Drops everything written since `mark` (a zone whose changes failed halfway leaves nothing behind).
    public mutating func rollback(to mark: Mark) {
        buffer.truncate(to: mark.count)
        needsComma = mark.needsComma
    }

    /// A complete value written by another writer, copied in as the next value (that writer is left empty).
    public mutating func raw(_ other: inout JSONWriter) {
        separate()
        buffer.append(other.buffer)
        other = JSONWriter(capacity: 64)
    }

    /// Bytes as base64, written straight into the buffer.
    public mutating func base64(_ d: Data) { separate(); buffer.append(UInt8(ascii: "\"")); buffer.appendBase64(d); buffer.append(UInt8(ascii: "\"")) }

    public mutating func field(_ k: StaticString, _ v: String) { key(k); string(v) }
    public mutating func field(_ k: StaticString, utf8 v: UnsafeBufferPointer<UInt8>) { key(k); string(utf8: v) }
    public mutating func field(_ k: StaticString, _ v: Int64) { key(k); int(v) }
    public mutating func field(_ k: StaticString, _ v: Bool) { key(k); bool(v) }
    /// A value written in our source (a type name): copied as it is, like a static key.
    public mutating func field(_ k: StaticString, _ v: StaticString) {
        key(k)
        separate()
        writeStatic(v)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Which bytes are escaped: ", \\, control characters, and < > so a JSON response can never be read as markup;
    /// and the first byte of U+2028/U+2029 is looked at (see `escape`). A bit mask for the bytes below 64 (no table
    /// to load through a lazy global on every string).
    @inline(__always) static func needsEscape(_ b: UInt8) -> Bool {
        let low: UInt64 = 0xFFFF_FFFF | 1 << 34 | 1 << 60 | 1 << 62
        return b < 64 ? (low >> UInt64(b)) & 1 == 1 : b == UInt8(ascii: "\\") || b == 0xE2
    }

    /// The one escaping rule for every JSON the server writes (responses, notification payloads, webhook bodies):
    /// runs of bytes that need no escaping go to `run` whole, escapes byte by byte to `byte`. U+2028/U+2029 are
    /// escaped too, so the text is safe inside a script; any other character is its UTF-8.
    @inline(__always) static func escape(_ buf: UnsafeBufferPointer<UInt8>, run: (UnsafeBufferPointer<UInt8>) -> Void,
                                         byte: (UInt8) -> Void) {
        var runStart = 0
        var i = 0
        let n = buf.count
        while i < n {
            let b = buf[i]
            if !needsEscape(b) { i += 1; continue }
            if b == 0xE2 && !(i + 2 < n && buf[i + 1] == 0x80 && (buf[i + 2] == 0xA8 || buf[i + 2] == 0xA9)) { i += 1; continue }
            if i > runStart { run(UnsafeBufferPointer(rebasing: buf[runStart..<i])) }
            runStart = i + 1
            byte(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): byte(b)
            case 0x0A: byte(UInt8(ascii: "n"))
            case 0x0D: byte(UInt8(ascii: "r"))
            case 0x09: byte(UInt8(ascii: "t"))
            case 0xE2:
                for c in "u202".utf8 { byte(c) }
                byte(buf[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                i += 2
                runStart = i + 1
            default:
                for c in "u00".utf8 { byte(c) }
                byte(hexDigits[Int(b >> 4)])
                byte(hexDigits[Int(b & 0xF)])
            }
            i += 1
        }
        if n > runStart { run(UnsafeBufferPointer(rebasing: buf[runStart..<n])) }
    }

    /// `s` as a JSON string, quoted, appended to `out`: for the notification payloads written byte by byte.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { buf in escape(buf, run: { out.append(contentsOf: $0) }, byte: { out.append($0) }) }
        out.append(UInt8(ascii: "\""))
    }

    private mutating func writeString(_ s: String) {
        var s = s
        s.withUTF8 { writeString($0) }
    }

    @inline(__always) private mutating func writeString(_ buf: UnsafeBufferPointer<UInt8>) {
        let buffer = self.buffer
        buffer.append(UInt8(ascii: "\""))
        Self.escape(buf, run: { buffer.append($0) }, byte: { buffer.append($0) })
        buffer.append(UInt8(ascii: "\""))
    }
}

/// Growable raw bytes for `JSONWriter`. A class so the writer's value copies share it, which they never
/// do in practice: a writer is built, filled and read in one place.
final class JSONBuffer {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    /// malloc'd, so growing is a realloc (which moves large blocks by remapping, not copying) and the finished
    /// text becomes a Data that frees it.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = JSONBuffer.allocate(self.capacity)
    }

    deinit { free(base) }

    private static func allocate(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        guard let p = malloc(n) else { fatalError("out of memory for a \(n)-byte JSON buffer") }
        return p.assumingMemoryBound(to: UInt8.self)
    }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    func takeData() -> Data {
        let d = Data(bytesNoCopy: base, count: count, deallocator: .free)
        capacity = 64
        count = 0
        base = JSONBuffer.allocate(capacity)
        return d
    }

    func truncate(to n: Int) { count = min(count, max(0, n)) }

    @inline(__always) private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        guard let p = realloc(base, c) else { fatalError("out of memory for a \(c)-byte JSON buffer") }
        base = p.assumingMemoryBound(to: UInt8.self)
        capacity = c
    }

    @inline(__always) func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always) func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let src = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: src, count: bytes.count)
        count += bytes.count
    }

    func append(_ other: JSONBuffer) {
        append(UnsafeBufferPointer(start: other.base, count: other.count))
    }

    @inline(__always) func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Digits straight into the buffer, without a temporary String.
    func appendDecimal(_ i: Int64) {
        reserve(20)
        if i == 0 { base[count] = UInt8(ascii: "0"); count += 1; return }
        var v = i.magnitude
        if i < 0 { base[count] = UInt8(ascii: "-"); count += 1 }
        var digits = 0
        var probe = v
        while probe > 0 { digits += 1; probe /= 10 }
        var k = count + digits - 1
        while v > 0 { base[k] = UInt8(48 + v % 10); v /= 10; k -= 1 }
        count += digits
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    func appendBase64(_ d: Data) {
        let n = d.count
        reserve((n + 2) / 3 * 4)
        JSONBuffer.alphabet.withUnsafeBufferPointer { a in
            d.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var i = 0
                var o = count
                while i + 3 <= n {
                    let v = UInt32(raw[i]) << 16 | UInt32(raw[i + 1]) << 8 | UInt32(raw[i + 2])
                    base[o] = a[Int(v >> 18)]; base[o + 1] = a[Int(v >> 12 & 63)]
                    base[o + 2] = a[Int(v >> 6 & 63)]; base[o + 3] = a[Int(v & 63)]
                    i += 3; o += 4
                }
                if n - i == 1 {
                    let v = UInt32(raw[i]) << 16
                    base[o] = a[Int(v >> 18)]; base[o + 1] = a[Int(v >> 12 & 63)]
                    base[o + 2] = UInt8(ascii: "="); base[o + 3] = UInt8(ascii: "=")
                    o += 4
                } else if n - i == 2 {
                    let v = UInt32(raw[i]) << 16 | UInt32(raw[i + 1]) << 8
                    base[o] = a[Int(v >> 18)]; base[o + 1] = a[Int(v >> 12 & 63)]
                    base[o + 2] = a[Int(v >> 6 & 63)]; base[o + 3] = UInt8(ascii: "=")
                    o += 4
                }
                count = o
            }
        }
    }
}
