import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Logs: the CloudKit API requests of this environment, newest first (time, operation, database, user, status,
/// CloudKit error code, duration, the uuid of an error answer), filtered by operation, status, user or uuid: the
/// uuid a client got with an error finds its line. Kept 7 days, at most a million lines.
extension MonitorPages {
    func logsPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        guard let log = console.requestLog else { throw StratusError(.notFound, "This server keeps no request log.") }
        func filter(_ k: String) -> String? { req.query(k).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        let status = try filter("status").map { (v: String) throws(StratusError) -> Int in
            guard let n = Int(v), (100...599).contains(n) else { throw .badRequest("status must be an HTTP status (100–599)") }
            return n
        }
        let before = filter("before").flatMap { Int64($0) }
        let entries = try log.entries(container: scope.container.rawValue, environment: scope.environment.rawValue,
                                      operation: filter("operation"),
                                      status: status, user: filter("user"), uuid: filter("uuid"), before: before, limit: 200)
        let demo = console.demoData(scope)
        let rows = entries.map { e in
            LogsView.Entry(time: ValueDisplay.utcString(e.at), generated: demo.map { e.at < $0.before } ?? false,
                           operation: e.operation, database: e.database, user: e.user ?? "—", status: e.status,
                           bad: e.status >= 400, errorCode: e.errorCode ?? "", injected: e.injected,
                           duration: String(format: "%.1f", Double(e.durationMicroseconds) / 1000), uuid: e.uuid ?? "")
        }
        var older: String?
        if entries.count == 200, let last = entries.last {
            var items: [(String, String)] = [("before", String(last.id))]
            for k in ["operation", "status", "user", "uuid"] { if let v = filter(k) { items.append((k, v)) } }
            older = scope.paths.logs(items)
        }
        let view = LogsView(entries: rows, hasEntries: !rows.isEmpty, action: scope.paths.logs(),
                            operation: filter("operation") ?? "",
                            status: status.map(String.init) ?? "", user: filter("user") ?? "", uuid: filter("uuid") ?? "", olderHref: older,
                            demoNote: demo?.note)
        let json = ["requests": entries.map { e in
            LogsView.Request(at: e.at, operation: e.operation, database: e.database, status: e.status,
                             durationMicroseconds: e.durationMicroseconds,
                             user: e.user, serverErrorCode: e.errorCode, uuid: e.uuid, injected: e.injected ? true : nil)
        }]
        return page(r, tab: .logs, "logs", title: "Logs", view, json: json)
    }

    /// `logs.mustache`: the latest requests, filtered.
    struct LogsView: Encodable {
        struct Entry: Encodable {
            let time: String
            /// Made up by `serve --demo` (see `Console.demoData`).
            let generated: Bool
            let operation, database, user: String
            let status: Int
            let bad: Bool
            let errorCode: String
            let injected: Bool
            let duration, uuid: String
        }
        /// A request in the page's JSON variant (absent members left out).
        struct Request: Encodable {
            let at: Int64
            let operation, database: String
            let status, durationMicroseconds: Int
            let user, serverErrorCode, uuid: String?
            let injected: Bool?
        }
        let entries: [Entry]
        let hasEntries: Bool
        let action, operation, status, user, uuid: String
        let olderHref, demoNote: String?
    }
}
