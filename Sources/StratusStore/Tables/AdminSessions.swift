import StratusModel

/// `admin_sessions` (control database): console sign-ins by the hash of their cookie, with the CSRF token their
/// forms carry, their clocks and the user they act as. Every statement on it is here.
enum AdminSessions {
    enum Column: String, TableColumn {
        case csrf, tokenHash = "token_hash", adminID = "admin_id", createdAt = "created_at"
        case lastSeen = "last_seen", actingContainer = "acting_container"
        case actingEnvironment = "acting_environment", actingUser = "acting_user", secondStep = "second_step"
    }

    /// Sessions whose administrator does not exist (what `stratus check` reports).
    static func orphans(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT count(*) FROM admin_sessions WHERE admin_id NOT IN (SELECT id FROM admins)") ?? 0
    }

    /// Starts a session, after forgetting those idle for `idle` or older than `absolute`.
    /// `secondStep`: the session waits for the administrator's second factor before it reaches any page.
    static func start(_ hash: String, admin: Int64, csrf: String, secondStep: Bool = false, now: Int64, idle: Int64,
                      absolute: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_sessions WHERE last_seen < ? OR created_at < ?", now - idle, now - absolute)
        try s.execute("""
            INSERT INTO admin_sessions(token_hash, admin_id, csrf, created_at, last_seen, second_step)
            VALUES (?, ?, ?, ?, ?, ?)
            """, hash, admin, csrf, now, now, secondStep ? 1 : 0)
    }

    private static let session = Selection<Column>([.csrf, .createdAt, .lastSeen, .actingContainer, .actingEnvironment,
                                                    .actingUser, .secondStep], as: "s")
    private static let admin = Selection<AdminRows.Column>([.id, .email, .theme], as: "a")

    /// What a session row says, with its administrator.
    typealias Found = (admin: Admin, csrf: String, created: Int64, seen: Int64, acting: ActingAs?, secondStep: Bool)

    /// A session with its administrator (the CSRF token, its clocks and whom it acts as) and the administrator's
    /// roles, in one statement: every console request needs all of it, so it is one read with no transaction
    /// around it (see `SQLDatabase.readStatement`).
    static func find(_ hash: String, _ s: any SQLSession) throws -> (Found, AdminRoles)? {
        var found: Found?
        var roles = AdminRoles()
        try s.each("""
            SELECT \(admin.sql), \(session.sql), r.container, r.role
            FROM admin_sessions s JOIN admins a ON a.id = s.admin_id LEFT JOIN admin_roles r ON r.admin_id = a.id WHERE s.token_hash = ?
            """, [.text(hash)]) { r in
            let a = NamedRow(r, admin), row = NamedRow(r, session, offset: a.end)
            if found == nil {
                let acting = row.string(.actingContainer).flatMap { c in
                    row.string(.actingEnvironment).flatMap { e in row.string(.actingUser).map { ActingAs(container: c,
                            environment: e, userRecordName: $0) } }
                }
                found = (Admin(id: a.int64(.id) ?? 0, email: a.string(.email) ?? "",
                               theme: ConsoleTheme(rawValue: a.string(.theme) ?? "") ?? .system),
                         row.string(.csrf) ?? "", row.int64(.createdAt) ?? 0, row.int64(.lastSeen) ?? 0, acting,
                         (row.int64(.secondStep) ?? 0) != 0)
            }
            if let container = r.string(row.end), let role = AdminRole(rawValue: r.string(row.end + 1) ?? "") {
                roles.hold(role, in: container)
            }
        }
        return found.map { ($0, roles) }
    }

    static func seen(_ hash: String, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE admin_sessions SET last_seen = ? WHERE token_hash = ?", now, hash)
    }

    static func setActing(_ acting: ActingAs?, _ hash: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE admin_sessions SET acting_container = ?, acting_environment = ?, acting_user = ? WHERE token_hash = ?",
                      acting?.container, acting?.environment, acting?.userRecordName, hash)
    }

    static func end(_ hash: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_sessions WHERE token_hash = ?", hash)
    }

    /// Ends every session of an administrator.
    static func endAll(admin: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_sessions WHERE admin_id = ?", admin)
    }
}
