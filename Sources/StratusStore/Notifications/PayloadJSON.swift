/// The JSON of notification payloads and webhook bodies, written directly: Foundation's JSONSerialization took
/// most of a write's notification cost. Objects print their members in the order given: callers list them
/// sorted (or use `sorted`), so a payload's bytes are stable.
indirect enum PayloadJSON: Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([PayloadJSON])
    case object([(String, PayloadJSON)])

    static func sorted(_ members: [String: PayloadJSON]) -> PayloadJSON { .object(members.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) }

    var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .string(let s): Self.quote(s, into: &out)
        case .int(let i): out += String(i).utf8
        case .double(let d): out += (d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)") : "null").utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .null: out += "null".utf8
        case .array(let xs):
            out.append(UInt8(ascii: "["))
            for (i, x) in xs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                x.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                Self.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// A JSON string: quotes, backslashes and control characters escaped; U+2028/9 escaped too, so the text is
    /// safe inside a script as well; everything else as its UTF-8.
    static func quote(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var i = 0
            while i < bytes.count {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), b]
                case UInt8(ascii: "\\"): out += [b, b]
                case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]]
                case 0xE2 where i + 2 < bytes.count && bytes[i + 1] == 0x80 && (bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9):
                    out += Array("\\u202".utf8) + [bytes[i + 2] == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9")]
                    i += 2
                default: out.append(b)
                }
                i += 1
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
