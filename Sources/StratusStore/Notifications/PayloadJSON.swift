import StratusModel

/// The JSON of notification payloads and webhook bodies as a small tree, written directly with the server's one
/// escaping rule (`JSONWriter.quote`): Foundation's JSONSerialization took most of a write's notification cost. Objects print their members in the order given: callers list them
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
        case .string(let s): JSONWriter.quote(s, into: &out)
        case .int(let i): out += String(i).utf8
        case .double(let d): out += JSONWriter.text(of: d).utf8
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
                JSONWriter.quote(key, into: &out)
                out.append(UInt8(ascii: ":"))
                value.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
