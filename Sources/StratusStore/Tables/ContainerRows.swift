import StratusModel

/// `containers` (control database): the containers that exist, and their first migration. Every statement on it
/// is here, and the rows of the control tables that name a container go with it.
enum ContainerRows {
    enum Column: String, TableColumn {
        case id, createdAt = "created_at", signUp = "sign_up"
    }

    /// The column by which a dependent table's rows name their container.
    enum DependentColumn: String, TableColumn {
        case container
    }

    /// The control tables whose rows belong to a container (by their `container` column).
    static let dependents = ["api_tokens", "users", "web_tokens", "server_keys", "identity_providers",
                             "user_identities", "sign_in_flows", "passkeys", "passkey_challenges", "pending_links"]

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v1", ddl: "CREATE TABLE containers(id TEXT PRIMARY KEY, created_at INTEGER NOT NULL) WITHOUT ROWID")
    }

    /// A new container's row; false when it exists already.
    static func insert(_ id: ContainerID, at now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("INSERT INTO containers(id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING", id.rawValue,
                      now) == 1
    }

    static func all(_ s: any SQLSession) throws -> [ContainerInfo] {
        let columns = Selection<Column>([.id, .createdAt])
        return try s.all("SELECT \(columns.sql) FROM containers ORDER BY id") { r in
            let row = NamedRow(r, columns)
            return (try? ContainerID(row.string(.id) ?? "")).map { ContainerInfo(id: $0,
                    createdAt: row.int64(.createdAt) ?? 0) }
        }
    }

    /// The ways new accounts may be made in a container (`SignUpWay`, comma-separated); nil: the defaults.
    static func signUp(_ id: ContainerID, _ s: any SQLSession) throws -> String? {
        try s.one("SELECT sign_up FROM containers WHERE id = ?", [id.rawValue]) { NamedRow($0,
                Selection<Column>([.signUp])).string(.signUp) }
    }

    /// False when there is no such container.
    static func setSignUp(_ ways: String, _ id: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE containers SET sign_up = ? WHERE id = ?", ways, id.rawValue) == 1
    }

    static func exists(_ id: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM containers WHERE id = ?", [id.rawValue])
    }

    /// Deletes a container's row and its rows in `dependents`; false when there was no such container.
    static func delete(_ id: ContainerID, _ s: any SQLSession) throws -> Bool {
        guard try s.execute("DELETE FROM containers WHERE id = ?", id.rawValue) == 1 else { return false }
        for table in dependents { try s.execute("DELETE FROM \(table) WHERE container = ?", id.rawValue) }
        return true
    }

    /// Rows of `table` (one of `dependents`) whose container does not exist, counted by container.
    static func orphans(in table: String, _ s: any SQLSession) throws -> [(container: String, count: Int64)] {
        let columns = Selection<DependentColumn>([.container])
        return try s.all("SELECT \(columns.sql), count(*) FROM \(table) WHERE container NOT IN (SELECT id FROM containers) GROUP BY container ORDER BY container", []) { r in
            let row = NamedRow(r, columns)
            return (row.string(.container) ?? "", r.int64(row.end) ?? 0)
        }
    }
}
