import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Logs: the CloudKit API requests of this environment, newest first (time, operation, database, user, status,
/// CloudKit error code, duration, the uuid of an error answer), filtered by operation, status, user or uuid: the
/// uuid a client got with an error finds its line. Kept 7 days, at most a million lines.
extension Console {
    func logsPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        guard let log = requestLog else { throw StratusError(.notFound, "This server keeps no request log.") }
        func filter(_ k: String) -> String? { req.query(k).map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } }
        let status = try filter("status").map { (v: String) throws(StratusError) -> Int in
            guard let n = Int(v), (100...599).contains(n) else { throw .badRequest("status must be an HTTP status (100–599)") }
            return n
        }
        let before = filter("before").flatMap { Int64($0) }
        let entries = try log.entries(container: scope.container.rawValue, environment: scope.environment.rawValue, operation: filter("operation"),
                                      status: status, user: filter("user"), uuid: filter("uuid"), before: before, limit: 200)
        let rows = entries.map { e -> [String: Any] in
            ["time": ValueDisplay.utcString(e.at), "operation": e.operation, "database": e.database, "user": e.user ?? "—", "status": e.status,
             "bad": e.status >= 400, "errorCode": e.errorCode ?? "", "injected": e.injected, "duration": String(format: "%.1f", Double(e.durationMicroseconds) / 1000), "uuid": e.uuid ?? ""]
        }
        var values: [String: Any] = ["entries": rows, "hasEntries": !rows.isEmpty, "action": scope.paths.logs(),
                                     "operation": filter("operation") ?? "", "status": status.map(String.init) ?? "", "user": filter("user") ?? "", "uuid": filter("uuid") ?? ""]
        if entries.count == 200, let last = entries.last {
            var items: [(String, String)] = [("before", String(last.id))]
            for k in ["operation", "status", "user", "uuid"] { if let v = filter(k) { items.append((k, v)) } }
            values["olderHref"] = scope.paths.logs(items)
        }
        let json: [String: Any] = ["requests": entries.map { e -> [String: Any] in
            var o: [String: Any] = ["at": e.at, "operation": e.operation, "database": e.database, "status": e.status, "durationMicroseconds": e.durationMicroseconds]
            if let u = e.user { o["user"] = u }
            if let c = e.errorCode { o["serverErrorCode"] = c }
            if let u = e.uuid { o["uuid"] = u }
            if e.injected { o["injected"] = true }
            return o
        }]
        return page(req, s, scope, tab: "logs", "logs", title: "Logs", values, json: json)
    }
}
