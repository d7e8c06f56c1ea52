import StratusModel

/// `stratus check` of the control data (containers, users, credentials, admins): the engine's own check of it, then
/// what its tables keep between them — every user, API token, web token and server-to-server key belongs to a
/// container that exists, and every admin session to an admin. It reads only, while servers keep serving.
public struct ControlCheck: Sendable {
    let store: ServerStore

    public init(_ store: ServerStore) { self.store = store }

    /// What a row of each table that names a container (`ContainerRows.dependents`) is called in a problem.
    static let containerReferences = [("users", "user"), ("api_tokens", "API token"), ("web_tokens", "web auth token"),
                                      ("server_keys", "server-to-server key")]

    public func run() throws(StratusError) -> ConsistencyCheck.Report {
        var report = ConsistencyCheck.Report()
        try guarded {
            try store.control.read { s in
                try EngineCheck.run(s, schema: ServerStore.controlSchema, into: &report)
                for (table, what) in Self.containerReferences {
                    for (container, n) in try ContainerRows.orphans(in: table, s).prefix(100) {
                        report.problems.append("\(n) \(what)\(n == 1 ? "" : "s") of container \(container.prefix(100)), which does not exist")
                    }
                }
                let sessions = try AdminSessions.orphans(s)
                if sessions > 0 { report.problems.append("\(sessions) console session\(sessions == 1 ? "" : "s") of an admin who does not exist") }
            }
        }
        return report
    }
}
