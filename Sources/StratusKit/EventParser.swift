import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads `id:`, `event:` and `data:` lines into events (the server-sent events format).
struct EventParser {
    struct Event {
        var id: String?
        var name: String?
        var data: String
    }

    private var buffer = Data()
    private var current = Event(id: nil, name: nil, data: "")
    private var hasData = false

    mutating func feed(_ chunk: Data) -> [Event] {
        buffer.append(chunk)
        var out: [Event] = []
        while let nl = buffer.firstIndex(of: 0x0A) {
            var line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
            buffer.removeSubrange(buffer.startIndex...nl)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if hasData { out.append(current) }
                current = Event(id: nil, name: nil, data: "")
                hasData = false
                continue
            }
            if line.hasPrefix(":") { continue }
            let (field, value) = line.firstIndex(of: ":").map { i -> (String, String) in
                var v = String(line[line.index(after: i)...])
                if v.hasPrefix(" ") { v.removeFirst() }
                return (String(line[..<i]), v)
            } ?? (line, "")
            switch field {
            case "id": current.id = value
            case "event": current.name = value
            case "data":
                current.data += hasData ? "\n" + value : value
                hasData = true
            default: break
            }
        }
        return out
    }
}
