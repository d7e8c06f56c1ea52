import StratusModel

/// `users` (control database): a container's users, each with their email (none for some who sign in with a
/// provider: read as ""), password hash (empty, never matching, for those who have no password), name and whether
/// others may discover them. Every statement on it is here.
enum UserRows {
    enum Column: String, TableColumn {
        case container, email, userRecordName = "user_record_name", passwordHash = "password_hash"
        case firstName = "first_name", lastName = "last_name", createdAt = "created_at", discoverable
        case discoverabilityChangedAt = "discoverability_changed_at"
    }

    private static let user = Selection<Column>([.userRecordName, .email, .firstName, .lastName, .discoverable,
                                                 .discoverabilityChangedAt, .passwordHash])

    private static func user(_ r: any SQLRow) -> (user: ContainerUser, passwordHash: String) {
        let row = NamedRow(r, user)
        return (ContainerUser(userRecordName: row.string(.userRecordName) ?? "", email: row.string(.email) ?? "",
                              firstName: row.string(.firstName) ?? "",
                              lastName: row.string(.lastName) ?? "", discoverable: row.bool(.discoverable) ?? false,
                              discoverabilityChangedAt: row.int64(.discoverabilityChangedAt)),
                row.string(.passwordHash) ?? "")
    }

    /// Whether the container has a user of this email (in any case).
    static func emailTaken(_ email: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM users WHERE container = ? AND \(s.dialect.caseInsensitive("email"))",
                     [container.rawValue, email])
    }

    static func insert(_ u: ContainerUser, container: ContainerID, passwordHash: String, at now: Int64,
                       _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO users(container, user_record_name, email, password_hash, first_name, last_name, created_at,
                              discoverable, discoverability_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, container.rawValue, u.userRecordName, u.email.isEmpty ? nil : u.email, passwordHash, u.firstName, u.lastName, now, u.discoverable, u.discoverabilityChangedAt)
    }

    /// Records a user's answer to "may others find me?"; false when there is no such user.
    static func setDiscoverable(_ discoverable: Bool, user: String, container: ContainerID, at now: Int64,
                                _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE users SET discoverable = ?, discoverability_changed_at = ? WHERE container = ? AND user_record_name = ?",
                      discoverable, now, container.rawValue, user) == 1
    }

    /// The container's users, by email.
    static func all(container: ContainerID, _ s: any SQLSession) throws -> [ContainerUser] {
        try s.all("SELECT \(user.sql) FROM users WHERE container = ? ORDER BY email",
                  [container.rawValue]) { user($0).user }
    }

    static func find(_ userRecordName: String, container: ContainerID, _ s: any SQLSession) throws -> ContainerUser? {
        try s.one("SELECT \(user.sql) FROM users WHERE container = ? AND user_record_name = ?", [container.rawValue,
                userRecordName]) { user($0).user }
    }

    /// The user of this email (in any case), with their password hash.
    static func find(email: String, container: ContainerID, _ s: any SQLSession) throws -> (user: ContainerUser,
            passwordHash: String)? {
        try s.one("SELECT \(user.sql) FROM users WHERE container = ? AND \(s.dialect.caseInsensitive("email"))",
                  [container.rawValue, email], user)
    }

    /// The container's users who have a password.
    static func withPassword(container: ContainerID, _ s: any SQLSession) throws -> [String] {
        try s.all("SELECT user_record_name FROM users WHERE container = ? AND password_hash <> ''",
                  [container.rawValue]) { NamedRow($0, Selection<Column>([.userRecordName])).string(.userRecordName) }
    }

    /// When each user was created and last signed in (their newest web auth token; nil when none is left).
    static func activity(container: ContainerID, _ s: any SQLSession) throws -> [(user: String, created: Int64,
            lastSignIn: Int64?)] {
        try s.all("""
            SELECT u.user_record_name, u.created_at, MAX(w.created_at) AS last_sign_in FROM users u
            LEFT JOIN web_tokens w ON w.container = u.container AND w.user_record_name = u.user_record_name
            WHERE u.container = ? GROUP BY u.user_record_name, u.created_at
            """, [container.rawValue]) { r in
            let row = NamedRow(r, Selection<Column>([.userRecordName, .createdAt]))
            return (row.string(.userRecordName) ?? "", row.int64(.createdAt) ?? 0, r.int64(row.end))
        }
    }
}
