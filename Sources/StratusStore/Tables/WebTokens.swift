import StratusModel

/// `web_tokens` (control database): web auth tokens by hash, each with its container environment, user, expiry and
/// family (the sign-in it descends from, by rotation). Every statement on it is here.
enum WebTokens {
    enum Column: String, TableColumn {
        case container, environment, family, tokenHash = "token_hash", userRecordName = "user_record_name"
        case expiresAt = "expires_at", createdAt = "created_at"
    }

    /// A new family's first token, after dropping the expired ones and the user's oldest past `keep - 1`.
    static func insertFirst(_ hash: String, container: ContainerID, environment: ContainerEnvironment, user: String,
                            expiresAt: Int64, keep: Int,
                            now: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM web_tokens WHERE expires_at < ?", now)
        try s.execute("""
            DELETE FROM web_tokens WHERE token_hash IN (SELECT token_hash FROM web_tokens WHERE container = ? AND user_record_name = ?
                ORDER BY created_at DESC, token_hash LIMIT 1000000 OFFSET ?)
            """, container.rawValue, user, keep - 1)
        try s.execute("""
            INSERT INTO web_tokens(token_hash, container, environment, user_record_name, expires_at, created_at, family)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, hash, container.rawValue, environment.rawValue, user, expiresAt, now, hash)
    }

    private static let session = Selection<Column>([.userRecordName, .expiresAt, .family])

    /// The session of a token of this container environment.
    static func session(_ hash: String, container: ContainerID, environment: ContainerEnvironment,
                        _ s: any SQLSession) throws -> WebAuthSession? {
        try s.one("SELECT \(session.sql) FROM web_tokens WHERE token_hash = ? AND container = ? AND environment = ?",
                  [hash, container.rawValue, environment.rawValue]) { r in
            let row = NamedRow(r, session)
            return WebAuthSession(user: row.string(.userRecordName) ?? "", expiresAt: row.int64(.expiresAt) ?? 0,
                                  family: row.string(.family) ?? hash)
        }
    }

    /// Makes a live token's successor, of its family, made from its row in one statement (a token signed out meanwhile
    /// has none); whether the successor exists now.
    static func insertSuccessor(_ successor: String, of hash: String, expiresAt: Int64, now: Int64,
                                _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            INSERT INTO web_tokens(token_hash, container, environment, user_record_name, expires_at, created_at, family)
            SELECT ?, container, environment, user_record_name, ?, ?, family FROM web_tokens WHERE token_hash = ? AND expires_at > ?
            ON CONFLICT(token_hash) DO NOTHING
            """, successor, expiresAt, now, hash, now)
        return try s.exists("SELECT 1 FROM web_tokens WHERE token_hash = ?", [successor])
    }

    /// Whose a token is: its container environment, user and family.
    static func owner(_ hash: String, _ s: any SQLSession) throws -> (container: ContainerID,
                                                                      environment: ContainerEnvironment, user: String,
            family: String)? {
        let columns = Selection<Column>([.container, .environment, .userRecordName, .family])
        return try s.one("SELECT \(columns.sql) FROM web_tokens WHERE token_hash = ?", [hash]) { r in
            let row = NamedRow(r, columns)
            return (try? ContainerID(row.string(.container) ?? "")).flatMap { c in
                ContainerEnvironment(rawValue: row.string(.environment) ?? "").map { (c, $0,
                        row.string(.userRecordName) ?? "", row.string(.family) ?? hash) }
            }
        } ?? nil
    }

    /// Ends a family: every token of one sign-in.
    static func deleteFamily(_ family: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM web_tokens WHERE family = ?", family)
    }

    static func familyIsLive(_ family: String, now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM web_tokens WHERE family = ? AND expires_at > ?", [family, now])
    }

    /// Ends every token of a user in a container; how many there were.
    static func deleteAll(user: String, container: ContainerID, _ s: any SQLSession) throws -> Int {
        try s.execute("DELETE FROM web_tokens WHERE container = ? AND user_record_name = ?", container.rawValue, user)
    }
}
