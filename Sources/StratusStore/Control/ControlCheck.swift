import StratusModel

/// `stratus check` of the control data (containers, users, credentials, admins): the engine's own check of it, then
/// what its tables keep between them — every user, API token, web token and server-to-server key belongs to a
/// container that exists, and every admin session to an admin. It reads only, while servers keep serving.
public struct ControlCheck: Sendable {
    let store: ServerStore

    public init(_ store: ServerStore) { self.store = store }

    /// Tables that name a container, and what one of their rows is called in a problem.
    static let containerReferences = [("users", "user"), ("api_tokens", "API token"), ("web_tokens", "web auth token"), ("server_keys", "server-to-server key")]

    public func run() throws(StratusError) -> ConsistencyCheck.Report {
        var report = ConsistencyCheck.Report()
        try guarded {
            try store.control.read { s in
                if s.dialect == .sqlite {
                    let result = try s.all("PRAGMA integrity_check", []) { $0.string(0) ?? "" }.joined(separator: "\n")
                    if result != "ok" { report.problems.append("SQLite's integrity check: \(result.prefix(2_000))") }
                } else {
                    try Amcheck.run(s, schema: ServerStore.controlSchema, into: &report)
                }
                for (table, what) in Self.containerReferences {
                    let orphans = try s.all("SELECT container, count(*) FROM \(table) WHERE container NOT IN (SELECT id FROM containers) GROUP BY container ORDER BY container", []) {
                        ($0.string(0) ?? "", $0.int64(1) ?? 0)
                    }
                    for (container, n) in orphans.prefix(100) {
                        report.problems.append("\(n) \(what)\(n == 1 ? "" : "s") of container \(container.prefix(100)), which does not exist")
                    }
                }
                let sessions = try s.int64("SELECT count(*) FROM admin_sessions WHERE admin_id NOT IN (SELECT id FROM admins)") ?? 0
                if sessions > 0 { report.problems.append("\(sessions) console session\(sessions == 1 ? "" : "s") of an admin who does not exist") }
            }
        }
        return report
    }
}
