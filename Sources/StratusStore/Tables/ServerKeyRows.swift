import StratusModel

/// `server_keys` (control database): the server-to-server keys registered for each container environment, live or
/// revoked, by Key ID. Every statement on it is here, and its migration.
enum ServerKeyRows {
    enum Column: String, TableColumn {
        case container, environment, notes, revoked
        case keyID = "key_id", publicKeyPEM = "public_key_pem", userRecordName = "user_record_name", createdAt = "created_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v3-server-keys", ddl: """
            CREATE TABLE server_keys(key_id TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, public_key_pem TEXT NOT NULL,
                notes TEXT NOT NULL, user_record_name TEXT NOT NULL, created_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            """)
    }

    private static let key = Selection<Column>([.keyID, .container, .environment, .publicKeyPEM, .notes,
                                                .userRecordName, .createdAt, .revoked])

    private static func key(_ r: any SQLRow) -> ServerKey? {
        let row = NamedRow(r, key)
        guard let c = try? ContainerID(row.string(.container) ?? ""), let e = ContainerEnvironment(rawValue: row.string(.environment) ?? "") else { return nil }
        return ServerKey(keyID: row.string(.keyID) ?? "", container: c, environment: e,
                         publicKeyPEM: row.string(.publicKeyPEM) ?? "",
                         notes: row.string(.notes) ?? "", userRecordName: row.string(.userRecordName) ?? "", createdAt: row.int64(.createdAt) ?? 0,
                         revoked: row.bool(.revoked) ?? false)
    }

    static func isLive(_ keyID: String, container: ContainerID, environment: ContainerEnvironment,
                       _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM server_keys WHERE key_id = ? AND container = ? AND environment = ? AND revoked = 0",
                     [keyID, container.rawValue, environment.rawValue])
    }

    /// Keeps a key, in place of a revoked row of the same Key ID.
    static func insert(_ k: ServerKey, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM server_keys WHERE key_id = ?", k.keyID)
        try s.execute("INSERT INTO server_keys(key_id, container, environment, public_key_pem, notes, user_record_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      k.keyID, k.container.rawValue, k.environment.rawValue, k.publicKeyPEM, k.notes, k.userRecordName, k.createdAt)
    }

    /// A container environment's keys, revoked ones included, oldest first.
    static func all(container: ContainerID, environment: ContainerEnvironment,
                    _ s: any SQLSession) throws -> [ServerKey] {
        try s.all("SELECT \(key.sql) FROM server_keys WHERE container = ? AND environment = ? ORDER BY created_at",
                  [container.rawValue, environment.rawValue], key)
    }

    /// The live key of this ID.
    static func live(_ keyID: String, _ s: any SQLSession) throws -> ServerKey? {
        try s.one("SELECT \(key.sql) FROM server_keys WHERE key_id = ? AND revoked = 0", [keyID], key)
    }

    /// Revokes a container's key; false when it has none of this ID.
    static func revoke(_ keyID: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE server_keys SET revoked = 1 WHERE key_id = ? AND container = ?", keyID,
                      container.rawValue) == 1
    }
}
