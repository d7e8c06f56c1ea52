import Foundation
import Logging
import Synchronization

/// One line per event on standard error: `2026-11-21T22:04:05.123Z info stratus: request method=GET path=/ status=200`.
/// swift-log's `StreamLogHandler` formats a local timestamp with strftime and sorts metadata on every call; at
/// tens of thousands of requests a second that is work the server cannot spare. Here the timestamp is UTC, keys
/// are sorted so lines compare alike, and values with spaces or quotes are quoted.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The formatted second is reused until the clock moves past it.
    private static let stamp = Mutex<(second: Int, text: String)>((-1, ""))

    public func log(event: LogEvent) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = now.tv_sec
        let text = LineLogHandler.stamp.withLock { s -> String in
            if s.second != second {
                var t = tm()
                var seconds = time_t(second)
                gmtime_r(&seconds, &t)
                s = (second, String(format: "%04d-%02d-%02dT%02d:%02d:%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                                    t.tm_hour, t.tm_min, t.tm_sec))
            }
            return s.text
        }
        let millis = Int(now.tv_nsec / 1_000_000)
        var line = text
        line += millis < 10 ? ".00" : millis < 100 ? ".0" : "."
        line += String(millis)
        line += "Z "
        line += event.level.rawValue
        line += " "
        line += label
        line += ": "
        line += event.message.description
        let all = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        for k in all.keys.sorted() { LineLogHandler.append(k, all[k]!, to: &line) }
        line += "\n"
        // One write(2) per line: lines from concurrent requests never interleave mid-line.
        line.withUTF8 { buf in _ = write(2, buf.baseAddress, buf.count) }
    }

    static func append(_ key: String, _ value: Logger.Metadata.Value, to line: inout String) {
        let v = value.description
        line += " "
        line += key
        line += "="
        if v.isEmpty || v.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) {
            line += "\""
            line += v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"",
                    with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
            line += "\""
        } else {
            line += v
        }
    }
}
