import StratusModel

/// `apns_credentials` (control database): each container environment's APNs signing key, whole (the server signs
/// with it). Every statement on it is here, and its migration.
enum APNsCredentialRows {
    enum Column: String, TableColumn {
        case container, environment, topic
        case keyID = "key_id", teamID = "team_id", privateKeyPEM = "private_key_pem", updatedAt = "updated_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v9-apns", ddl: """
            CREATE TABLE apns_credentials(container TEXT NOT NULL, environment TEXT NOT NULL, key_id TEXT NOT NULL, team_id TEXT NOT NULL,
                topic TEXT NOT NULL, private_key_pem TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY(container, environment)) WITHOUT ROWID;
            """)
    }

    private static let credentials = Selection<Column>([.container, .environment, .keyID, .teamID, .topic,
                                                        .privateKeyPEM, .updatedAt])

    private static func credentials(_ r: any SQLRow) -> APNsCredentials? {
        let row = NamedRow(r, credentials)
        guard let c = try? ContainerID(row.string(.container) ?? ""), let e = ContainerEnvironment(rawValue: row.string(.environment) ?? "") else { return nil }
        return APNsCredentials(container: c, environment: e, keyID: row.string(.keyID) ?? "",
                               teamID: row.string(.teamID) ?? "", topic: row.string(.topic) ?? "",
                               privateKeyPEM: row.string(.privateKeyPEM) ?? "", updatedAt: row.int64(.updatedAt) ?? 0)
    }

    /// Keeps a container environment's key in place of the one it had.
    static func replace(_ k: APNsCredentials, _ s: any SQLSession) throws {
        _ = try remove(container: k.container, environment: k.environment, s)
        try s.execute("INSERT INTO apns_credentials(\(credentials.sql)) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      k.container.rawValue, k.environment.rawValue,
                      k.keyID, k.teamID, k.topic, k.privateKeyPEM, k.updatedAt)
    }

    static func find(container: ContainerID, environment: ContainerEnvironment,
                     _ s: any SQLSession) throws -> APNsCredentials? {
        try s.one("SELECT \(credentials.sql) FROM apns_credentials WHERE container = ? AND environment = ?",
                  [container.rawValue, environment.rawValue], credentials)
    }

    static func all(_ s: any SQLSession) throws -> [APNsCredentials] {
        try s.all("SELECT \(credentials.sql) FROM apns_credentials ORDER BY container, environment", [], credentials)
    }

    /// Forgets a container environment's key; false when it had none.
    static func remove(container: ContainerID, environment: ContainerEnvironment, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM apns_credentials WHERE container = ? AND environment = ?", container.rawValue,
                      environment.rawValue) == 1
    }
}
