import Foundation
import GRDB
import StratusModel

/// Console administrators, their sessions and the audit log, in the control database.
extension RecordStore {
    static func registerAdminMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v4-admins") { db in
            try db.execute(sql: """
                CREATE TABLE admins(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                CREATE TABLE admin_sessions(token_hash TEXT PRIMARY KEY, admin_id INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
                    csrf TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE audit(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, admin TEXT NOT NULL, action TEXT NOT NULL,
                    container TEXT, environment TEXT, detail TEXT NOT NULL);
                """)
        }
    }

    /// Sessions end after 2 hours without use, and 12 hours after sign-in whatever happens.
    public static let sessionIdle: Int64 = 2 * 3600 * 1000
    public static let sessionAbsolute: Int64 = 12 * 3600 * 1000

    public func hasAdmins() throws(StratusError) -> Bool {
        try guarded { try control.read { db in try Bool.fetchOne(db, sql: "SELECT 1 FROM admins LIMIT 1") ?? false } }
    }

    @discardableResult
    public func createAdmin(email: String, password: String) throws(StratusError) -> Admin {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard email.count <= 254, email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else { throw .badRequest("'\(email.prefix(100))' is not an email address") }
        guard password.count >= 10, password.utf8.count <= 1024 else { throw .badRequest("an admin password needs 10 to 1024 characters") }
        let hash = try guarded { try Secrets.hashPassword(password) }
        return try guarded {
            try control.write { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM admins WHERE email = ?", arguments: [email]) == true {
                    throw StratusError(.exists, "an admin with this email already exists")
                }
                try db.execute(sql: "INSERT INTO admins(email, password_hash, created_at) VALUES (?, ?, ?)", arguments: [email, hash, Clock.nowMillis()])
                return Admin(id: db.lastInsertedRowID, email: email)
            }
        }
    }

    public func admins() throws(StratusError) -> [Admin] {
        try guarded { try control.read { db in try Row.fetchAll(db, sql: "SELECT id, email FROM admins ORDER BY email").map { Admin(id: $0[0], email: $0[1]) } } }
    }

    public func deleteAdmin(email: String) throws(StratusError) {
        try guarded {
            try control.write { db in
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM admins WHERE email = ?", arguments: [email]) else {
                    throw StratusError(.notFound, "no admin with this email")
                }
                try db.execute(sql: "DELETE FROM admin_sessions WHERE admin_id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM admins WHERE id = ?", arguments: [id])
            }
        }
    }

    /// Sets a new password and ends the admin's sessions.
    public func resetAdminPassword(email: String, password: String) throws(StratusError) {
        guard password.count >= 10, password.utf8.count <= 1024 else { throw .badRequest("an admin password needs 10 to 1024 characters") }
        let hash = try guarded { try Secrets.hashPassword(password) }
        try guarded {
            try control.write { db in
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM admins WHERE email = ?", arguments: [email]) else {
                    throw StratusError(.notFound, "no admin with this email")
                }
                try db.execute(sql: "UPDATE admins SET password_hash = ? WHERE id = ?", arguments: [hash, id])
                try db.execute(sql: "DELETE FROM admin_sessions WHERE admin_id = ?", arguments: [id])
            }
        }
    }

    public func authenticateAdmin(email: String, password: String) throws(StratusError) -> Admin? {
        let row: Row? = try guarded { try control.read { db in try Row.fetchOne(db, sql: "SELECT id, email, password_hash FROM admins WHERE email = ?", arguments: [email]) } }
        guard let row else { _ = Secrets.verifyPassword(password, hash: RecordStore.decoyHash); return nil }
        return Secrets.verifyPassword(password, hash: row[2]) ? Admin(id: row[0], email: row[1]) : nil
    }

    /// Starts a session: a random cookie token (kept hashed) and the CSRF token its forms must carry.
    public func createAdminSession(_ admin: Admin) throws(StratusError) -> (token: String, csrf: String) {
        let token = Secrets.hex(Secrets.randomBytes(32)), csrf = Secrets.hex(Secrets.randomBytes(16))
        let now = Clock.nowMillis()
        try guarded {
            try control.write { db in
                try db.execute(sql: "DELETE FROM admin_sessions WHERE last_seen < ? OR created_at < ?",
                               arguments: [now - RecordStore.sessionIdle, now - RecordStore.sessionAbsolute])
                try db.execute(sql: "INSERT INTO admin_sessions(token_hash, admin_id, csrf, created_at, last_seen) VALUES (?, ?, ?, ?, ?)",
                               arguments: [Secrets.tokenHash(token), admin.id, csrf, now, now])
            }
        }
        return (token, csrf)
    }

    /// The admin and CSRF token of a live session, refreshing its idle clock (at most once a minute).
    public func adminSession(_ token: String) throws(StratusError) -> (admin: Admin, csrf: String)? {
        guard token.utf8.count == 64 else { return nil }
        let now = Clock.nowMillis()
        let hash = Secrets.tokenHash(token)
        let row: Row? = try guarded {
            try control.read { db in
                try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT a.id, a.email, s.csrf, s.created_at, s.last_seen FROM admin_sessions s JOIN admins a ON a.id = s.admin_id WHERE s.token_hash = ?
                    """), arguments: [hash])
            }
        }
        guard let row else { return nil }
        let created: Int64 = row[3], seen: Int64 = row[4]
        guard now - seen <= RecordStore.sessionIdle, now - created <= RecordStore.sessionAbsolute else { return nil }
        if now - seen > 60_000 {
            try guarded { try control.write { db in try db.execute(sql: "UPDATE admin_sessions SET last_seen = ? WHERE token_hash = ?", arguments: [now, hash]) } }
        }
        return (Admin(id: row[0], email: row[1]), row[2])
    }

    public func endAdminSession(_ token: String) throws(StratusError) {
        try guarded { try control.write { db in try db.execute(sql: "DELETE FROM admin_sessions WHERE token_hash = ?", arguments: [Secrets.tokenHash(token)]) } }
    }

    public func audit(_ entry: AuditEntry) throws(StratusError) {
        try guarded {
            try control.write { db in
                try db.execute(sql: "INSERT INTO audit(at, admin, action, container, environment, detail) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [entry.at, entry.admin, entry.action, entry.container, entry.environment, entry.detail])
            }
        }
    }

    /// The newest entries first.
    public func auditLog(limit: Int = 200) throws(StratusError) -> [AuditEntry] {
        try guarded {
            try control.read { db in
                try Row.fetchAll(db, sql: "SELECT at, admin, action, container, environment, detail FROM audit ORDER BY id DESC LIMIT ?", arguments: [limit]).map {
                    AuditEntry(at: $0[0], admin: $0[1], action: $0[2], container: $0[3], environment: $0[4], detail: $0[5])
                }
            }
        }
    }
}
