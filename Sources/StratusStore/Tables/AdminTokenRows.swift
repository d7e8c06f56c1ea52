import StratusModel

/// `admin_tokens` (control database): the admin API's scoped bearer tokens (`AdminToken`), each kept by the hash
/// of its secret. Every statement on it is here, and the migration that made it.
enum AdminTokenRows {
    enum Column: String, TableColumn {
        case id, name, tokenHash = "token_hash", container, role, createdAt = "created_at", expiresAt = "expires_at"
        case createdBy = "created_by"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v31-admin-tokens") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admin_tokens(id INTEGER PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE,
                    container TEXT NOT NULL, role TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER,
                    created_by TEXT NOT NULL);
                """))
        }
    }

    private static let token = Selection<Column>([.id, .name, .container, .role, .createdAt, .expiresAt, .createdBy])

    private static func token(_ r: any SQLRow) -> AdminToken? {
        let row = NamedRow(r, token)
        guard let id = row.int64(.id), let role = AdminRole(rawValue: row.string(.role) ?? "") else { return nil }
        let container = row.string(.container).flatMap { $0 == AdminRoleRows.everywhere ? nil : try? ContainerID($0) }
        return AdminToken(id: id, name: row.string(.name) ?? "", container: container, role: role,
                          createdAt: row.int64(.createdAt) ?? 0, expiresAt: row.int64(.expiresAt),
                          createdBy: row.string(.createdBy) ?? "")
    }

    static func insert(_ t: AdminToken, hash: String, _ s: any SQLSession) throws -> Int64 {
        try s.int64("""
            INSERT INTO admin_tokens(name, token_hash, container, role, created_at, expires_at, created_by)
            VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, [t.name, hash, t.container?.rawValue ?? AdminRoleRows.everywhere, t.role.rawValue, t.createdAt,
                  t.expiresAt, t.createdBy]) ?? 0
    }

    static func all(_ s: any SQLSession) throws -> [AdminToken] {
        try s.all("SELECT \(token.sql) FROM admin_tokens ORDER BY created_at, id", [], token)
    }

    static func find(hash: String, _ s: any SQLSession) throws -> AdminToken? {
        try s.one("SELECT \(token.sql) FROM admin_tokens WHERE token_hash = ?", [hash], token)
    }

    static func count(_ s: any SQLSession) throws -> Int64 { try s.int64("SELECT COUNT(*) FROM admin_tokens") ?? 0 }

    /// False when there was none of that id.
    static func delete(_ id: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM admin_tokens WHERE id = ?", id) == 1
    }
}
