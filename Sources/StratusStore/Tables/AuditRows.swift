import StratusModel

/// `audit` (control database): what administrators did, newest last. Every statement on it is here.
enum AuditRows {
    enum Column: String, TableColumn { case id, at, admin, action, container, environment, detail }

    static func insert(_ e: AuditEntry, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO audit(at, admin, action, container, environment, detail) VALUES (?, ?, ?, ?, ?, ?)",
                      e.at, e.admin, e.action, e.container, e.environment, e.detail)
    }

    /// The newest entries first.
    static func newest(limit: Int, _ s: any SQLSession) throws -> [AuditEntry] {
        let columns = Selection<Column>([.at, .admin, .action, .container, .environment, .detail])
        return try s.all("SELECT \(columns.sql) FROM audit ORDER BY id DESC LIMIT ?", [limit]) { r in
            let row = NamedRow(r, columns)
            return AuditEntry(at: row.int64(.at) ?? 0, admin: row.string(.admin) ?? "",
                              action: row.string(.action) ?? "", container: row.string(.container),
                              environment: row.string(.environment), detail: row.string(.detail) ?? "")
        }
    }
}
