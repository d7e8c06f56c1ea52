import Foundation
import StratusModel

/// Console administrators, their sessions and the audit log, in the control database.
public final class AdminStore: Sendable {
    let control: any SQLDatabase

    init(control: any SQLDatabase) { self.control = control }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v4-admins") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admins(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                CREATE TABLE admin_sessions(token_hash TEXT PRIMARY KEY, admin_id INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
                    csrf TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE audit(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, admin TEXT NOT NULL, action TEXT NOT NULL,
                    container TEXT, environment TEXT, detail TEXT NOT NULL);
                """))
            // PostgreSQL has no NOCASE columns: one admin per email whatever its case, through an index on lower(email).
            if s.dialect == .postgres { try s.script("CREATE UNIQUE INDEX admins_email_lower ON admins(lower(email))") }
        }
        // The colour scheme each admin chose, and the user a session acts as (one container environment at a time).
        m.add("v10-admin-preferences", ddl: """
            ALTER TABLE admins ADD COLUMN theme TEXT NOT NULL DEFAULT 'system';
            ALTER TABLE admin_sessions ADD COLUMN acting_container TEXT;
            ALTER TABLE admin_sessions ADD COLUMN acting_environment TEXT;
            ALTER TABLE admin_sessions ADD COLUMN acting_user TEXT;
            """)
    }

    /// Sessions end after 2 hours without use, and 12 hours after sign-in whatever happens.
    public static let sessionIdle: Int64 = 2 * 3600 * 1000
    public static let sessionAbsolute: Int64 = 12 * 3600 * 1000

    public func hasAdmins() throws(StratusError) -> Bool {
        try guarded { try control.read { s in try s.exists("SELECT 1 FROM admins LIMIT 1") } }
    }

    @discardableResult
    public func createAdmin(email: String, password: String) throws(StratusError) -> Admin {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isValid(email) else { throw .badRequest("'\(email.prefix(100))' is not an email address") }
        guard password.count >= 10, password.utf8.count <= 1024 else { throw .badRequest("an admin password needs 10 to 1024 characters") }
        let hash = try guarded { try Secrets.hashPassword(password) }
        return try guarded {
            try control.write { s in
                if try s.exists("SELECT 1 FROM admins WHERE \(s.dialect.caseInsensitive("email"))", [email]) {
                    throw StratusError(.exists, "an admin with this email already exists")
                }
                let id = try s.int64("INSERT INTO admins(email, password_hash, created_at) VALUES (?, ?, ?) RETURNING id", [email, hash, WallClock.nowMillis()])
                return Admin(id: id ?? 0, email: email)
            }
        }
    }

    public func all() throws(StratusError) -> [Admin] {
        try guarded { try control.read { s in try s.all("SELECT id, email FROM admins ORDER BY email") { Admin(id: $0.int64(0) ?? 0, email: $0.string(1) ?? "") } } }
    }

    /// The admin's id, for the statements that change it.
    private func adminID(_ s: any SQLSession, email: String) throws -> Int64 {
        guard let id = try s.int64("SELECT id FROM admins WHERE \(s.dialect.caseInsensitive("email"))", [email]) else {
            throw StratusError(.notFound, "no admin with this email")
        }
        return id
    }

    public func deleteAdmin(email: String) throws(StratusError) {
        try guarded {
            try control.write { s in
                let id = try adminID(s, email: email)
                try s.execute("DELETE FROM admin_sessions WHERE admin_id = ?", id)
                try s.execute("DELETE FROM admins WHERE id = ?", id)
            }
        }
    }

    /// Sets a new password and ends the admin's sessions.
    public func resetAdminPassword(email: String, password: String) throws(StratusError) {
        guard password.count >= 10, password.utf8.count <= 1024 else { throw .badRequest("an admin password needs 10 to 1024 characters") }
        let hash = try guarded { try Secrets.hashPassword(password) }
        try guarded {
            try control.write { s in
                let id = try adminID(s, email: email)
                try s.execute("UPDATE admins SET password_hash = ? WHERE id = ?", hash, id)
                try s.execute("DELETE FROM admin_sessions WHERE admin_id = ?", id)
            }
        }
    }

    public func authenticateAdmin(email: String, password: String) throws(StratusError) -> Admin? {
        let found: (Admin, String)? = try guarded {
            try control.read { s in
                try s.one("SELECT id, email, password_hash FROM admins WHERE \(s.dialect.caseInsensitive("email"))", [email]) { r in
                    (Admin(id: r.int64(0) ?? 0, email: r.string(1) ?? ""), r.string(2) ?? "")
                }
            }
        }
        guard let (admin, hash) = found else { _ = Secrets.verifyPassword(password, hash: AccountStore.decoyHash); return nil }
        return Secrets.verifyPassword(password, hash: hash) ? admin : nil
    }

    /// Starts a session: a random cookie token (kept hashed) and the CSRF token its forms must carry.
    public func createAdminSession(_ admin: Admin) throws(StratusError) -> (token: String, csrf: String) {
        let token = Secrets.hex(Secrets.randomBytes(32)), csrf = Secrets.hex(Secrets.randomBytes(16))
        let now = WallClock.nowMillis()
        try guarded {
            try control.write { s in
                try s.execute("DELETE FROM admin_sessions WHERE last_seen < ? OR created_at < ?", now - AdminStore.sessionIdle, now - AdminStore.sessionAbsolute)
                try s.execute("INSERT INTO admin_sessions(token_hash, admin_id, csrf, created_at, last_seen) VALUES (?, ?, ?, ?, ?)",
                              Secrets.tokenHash(token), admin.id, csrf, now, now)
            }
        }
        return (token, csrf)
    }

    /// The admin, CSRF token and "act as" choice of a live session, refreshing its idle clock (at most once a minute).
    public func adminSession(_ token: String) throws(StratusError) -> (admin: Admin, csrf: String, acting: ActingAs?)? {
        guard token.utf8.count == 64 else { return nil }
        let now = WallClock.nowMillis()
        let hash = Secrets.tokenHash(token)
        let found: (admin: Admin, csrf: String, created: Int64, seen: Int64, acting: ActingAs?)? = try guarded {
            try control.read { s in
                try s.one("""
                    SELECT a.id, a.email, a.theme, s.csrf, s.created_at, s.last_seen, s.acting_container, s.acting_environment, s.acting_user
                    FROM admin_sessions s JOIN admins a ON a.id = s.admin_id WHERE s.token_hash = ?
                    """, [hash]) { r in
                    let acting = r.string(6).flatMap { c in r.string(7).flatMap { e in r.string(8).map { ActingAs(container: c, environment: e, userRecordName: $0) } } }
                    return (Admin(id: r.int64(0) ?? 0, email: r.string(1) ?? "", theme: ConsoleTheme(rawValue: r.string(2) ?? "") ?? .system),
                            r.string(3) ?? "", r.int64(4) ?? 0, r.int64(5) ?? 0, acting)
                }
            }
        }
        guard let found else { return nil }
        guard now - found.seen <= AdminStore.sessionIdle, now - found.created <= AdminStore.sessionAbsolute else { return nil }
        if now - found.seen > 60_000 {
            try guarded { try control.write { s in try s.execute("UPDATE admin_sessions SET last_seen = ? WHERE token_hash = ?", now, hash) } }
        }
        return (found.admin, found.csrf, found.acting)
    }

    /// Sets the console colour scheme an admin sees on every device.
    public func setTheme(_ theme: ConsoleTheme, admin: Admin) throws(StratusError) {
        try guarded { try control.write { s in try s.execute("UPDATE admins SET theme = ? WHERE id = ?", theme.rawValue, admin.id) } }
    }

    /// Chooses (or, with nil, forgets) the user the session acts as. The console checks the user exists first.
    public func setActingAs(_ acting: ActingAs?, session token: String) throws(StratusError) {
        try guarded {
            try control.write { s in
                try s.execute("UPDATE admin_sessions SET acting_container = ?, acting_environment = ?, acting_user = ? WHERE token_hash = ?",
                              acting?.container, acting?.environment, acting?.userRecordName, Secrets.tokenHash(token))
            }
        }
    }

    public func endAdminSession(_ token: String) throws(StratusError) {
        try guarded { try control.write { s in try s.execute("DELETE FROM admin_sessions WHERE token_hash = ?", Secrets.tokenHash(token)) } }
    }

    public func audit(_ entry: AuditEntry) throws(StratusError) {
        try guarded {
            try control.write { s in
                try s.execute("INSERT INTO audit(at, admin, action, container, environment, detail) VALUES (?, ?, ?, ?, ?, ?)",
                              entry.at, entry.admin, entry.action, entry.container, entry.environment, entry.detail)
            }
        }
    }

    /// The newest entries first.
    public func auditLog(limit: Int = 200) throws(StratusError) -> [AuditEntry] {
        try guarded {
            try control.read { s in
                try s.all("SELECT at, admin, action, container, environment, detail FROM audit ORDER BY id DESC LIMIT ?", [limit]) { r in
                    AuditEntry(at: r.int64(0) ?? 0, admin: r.string(1) ?? "", action: r.string(2) ?? "", container: r.string(3), environment: r.string(4), detail: r.string(5) ?? "")
                }
            }
        }
    }
}
