/// `deployments` (Production's environment database): each deploy of the Development schema, with who made it and
/// its changes, one sentence per line. Every statement on it is here.
enum DeploymentRows {
    enum Column: String, TableColumn {
        case id, changes, deployedAt = "deployed_at", deployedBy = "deployed_by"
    }

    private static let deployment = Selection<Column>([.id, .deployedAt, .deployedBy, .changes])

    static func insert(by user: String, changes: [String], at now: Int64, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO deployments(deployed_at, deployed_by, changes) VALUES (?, ?, ?)", now, user,
                      changes.joined(separator: "\n"))
    }

    /// Every deploy, newest first.
    static func all(_ s: any SQLSession) throws -> [Deployment] {
        try s.all("SELECT \(deployment.sql) FROM deployments ORDER BY id DESC") { r in
            let row = NamedRow(r, deployment)
            let text = row.string(.changes) ?? ""
            return Deployment(id: row.int64(.id) ?? 0, deployedAt: row.int64(.deployedAt) ?? 0,
                              deployedBy: row.string(.deployedBy) ?? "",
                              changes: text.isEmpty ? [] : text.components(separatedBy: "\n"))
        }
    }
}
