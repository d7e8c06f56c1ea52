import Foundation
import StratusModel

/// Console administrators, their sessions and the audit log, in the control database.
public final class AdminStore: Sendable {
    let control: any SQLDatabase

    init(control: any SQLDatabase) { self.control = control }

    static func registerMigrations(_ m: inout SQLMigrations) { AdminRows.registerMigrations(&m) }
    /// The steps made after the others of the control database.
    static func registerLaterMigrations(_ m: inout SQLMigrations) {
        AdminRoleRows.registerMigrations(&m)
        AdminTokenRows.registerMigrations(&m)
        AdminTwoFactorRows.registerMigrations(&m)
        AdminPasskeyRows.registerMigrations(&m)
    }

    /// Sessions end after 2 hours without use, and 12 hours after sign-in whatever happens.
    public static let sessionIdle: Int64 = 2 * 3600 * 1000
    public static let sessionAbsolute: Int64 = 12 * 3600 * 1000

    /// The administrators' second factors: TOTP with recovery codes, and passkeys.
    public var twoFactor: AdminTwoFactor { AdminTwoFactor(control: control) }
    public var passkeys: AdminPasskeys { AdminPasskeys(control: control) }

    public func hasAdmins() throws(StratusError) -> Bool {
        try guarded { try control.read { s in try AdminRows.any(s) } }
    }

    @discardableResult
    public func createAdmin(email: String, password: String) throws(StratusError) -> Admin {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isValid(email) else { throw .badRequest("'\(email.prefix(100))' is not an email address") }
        guard password.count >= 10, password.utf8.count <= 1024 else { throw .badRequest("an admin password needs 10 to 1024 characters") }
        let hash = try guarded { try Secrets.hashPassword(password) }
        return try guarded {
            try control.write { s in
                if try AdminRows.find(email: email, s) != nil { throw StratusError(.exists,
                        "an admin with this email already exists") }
                // The first administrator owns the server; those after hold no role until an owner grants one.
                let first = !(try AdminRows.any(s))
                let id = try AdminRows.insert(email: email, passwordHash: hash, at: WallClock.nowMillis(), s)
                if first { try AdminRoleRows.grant(.owner, to: id, in: nil, s) }
                return Admin(id: id, email: email)
            }
        }
    }

    public func all() throws(StratusError) -> [Admin] {
        try guarded { try control.read { s in try AdminRows.all(s) } }
    }

    /// The admin's id, for the statements that change it.
    func adminID(_ s: any SQLSession, email: String) throws -> Int64 {
        guard let id = try AdminRows.find(email: email, s)?.admin.id else {
            throw StratusError(.notFound, "no admin with this email")
        }
        return id
    }

    public func deleteAdmin(email: String) throws(StratusError) {
        try guarded {
            try control.write { s in
                let id = try adminID(s, email: email)
                try AdminRoleRows.keepsAnOwner(without: id, deleting: true, s)
                try AdminRoleRows.revokeAll(from: id, s)
                try AdminRows.delete(id: id, s)
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
                try AdminRows.setPassword(id: id, hash: hash, s)
                try AdminSessions.endAll(admin: id, s)
            }
        }
    }

    public func authenticateAdmin(email: String, password: String) throws(StratusError) -> Admin? {
        let found: (Admin, String)? = try guarded {
            try control.read { s in try AdminRows.find(email: email, s) }
        }
        guard let (admin, hash) = found else { _ = Secrets.verifyPassword(password,
                hash: AccountStore.decoyHash); return nil }
        return Secrets.verifyPassword(password, hash: hash) ? admin : nil
    }

    /// Starts a session: a random cookie token (kept hashed) and the CSRF token its forms must carry. An
    /// administrator with a second factor gets a session that waits for it (`secondStepPending`).
    public func createAdminSession(_ admin: Admin, secondStep: Bool = false) throws(StratusError)
        -> (token: String, csrf: String) {
        let token = Secrets.hex(Secrets.randomBytes(32)), csrf = Secrets.hex(Secrets.randomBytes(16))
        let now = WallClock.nowMillis()
        try guarded {
            try control.write { s in
                try AdminSessions.start(Secrets.tokenHash(token), admin: admin.id, csrf: csrf, secondStep: secondStep,
                                        now: now,
                                        idle: AdminStore.sessionIdle,
                                        absolute: AdminStore.sessionAbsolute, s)
            }
        }
        return (token, csrf)
    }

    /// The admin, CSRF token and "act as" choice of a live session, refreshing its idle clock (at most once a minute).
    public func adminSession(_ token: String) throws(StratusError) -> AdminSessionState? {
        guard token.utf8.count == 64 else { return nil }
        let now = WallClock.nowMillis()
        let hash = Secrets.tokenHash(token)
        // The session and its administrator's roles in one read: every console request needs both.
        let read = try guarded { try control.readStatement { s in try AdminSessions.find(hash, s) } }
        guard let (found, roles) = read else { return nil }
        guard now - found.seen <= AdminStore.sessionIdle, now - found.created <= AdminStore.sessionAbsolute else { return nil }
        if now - found.seen > 60_000 {
            try guarded { try control.write { s in try AdminSessions.seen(hash, at: now, s) } }
        }
        return AdminSessionState(admin: found.admin, csrf: found.csrf, acting: found.acting,
                                 secondStepPending: found.secondStep, roles: roles)
    }

    /// Sets the console colour scheme an admin sees on every device.
    public func setTheme(_ theme: ConsoleTheme, admin: Admin) throws(StratusError) {
        try guarded { try control.write { s in try AdminRows.setTheme(id: admin.id, theme, s) } }
    }

    /// Chooses (or, with nil, forgets) the user the session acts as. The console checks the user exists first.
    public func setActingAs(_ acting: ActingAs?, session token: String) throws(StratusError) {
        try guarded {
            try control.write { s in try AdminSessions.setActing(acting, Secrets.tokenHash(token), s) }
        }
    }

    public func endAdminSession(_ token: String) throws(StratusError) {
        try guarded { try control.write { s in try AdminSessions.end(Secrets.tokenHash(token), s) } }
    }

    public func audit(_ entry: AuditEntry) throws(StratusError) {
        try guarded {
            try control.write { s in try AuditRows.insert(entry, s) }
        }
    }

    /// The newest entries first.
    public func auditLog(limit: Int = 200) throws(StratusError) -> [AuditEntry] {
        try guarded {
            try control.read { s in try AuditRows.newest(limit: limit, s) }
        }
    }
}
