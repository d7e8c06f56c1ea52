import StratusModel

/// `admin_totp` and `admin_recovery_codes` (control database): each administrator's TOTP secret (unconfirmed until
/// its first code is given back; `last_step` the last time step accepted, so a code is used once) and their
/// single-use recovery codes, kept hashed; and whether a session still waits for its second step
/// (`admin_sessions.second_step`). Every statement on them is here, and the migration that made them.
enum AdminTwoFactorRows {
    enum Column: String, TableColumn {
        case adminID = "admin_id", secret, lastStep = "last_step", confirmed, createdAt = "created_at"
        case codeHash = "code_hash"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v32-two-factor") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admin_totp(admin_id INTEGER PRIMARY KEY, secret TEXT NOT NULL, last_step INTEGER NOT NULL,
                    confirmed INTEGER NOT NULL, created_at INTEGER NOT NULL);
                CREATE TABLE admin_recovery_codes(admin_id INTEGER NOT NULL, code_hash TEXT NOT NULL,
                    PRIMARY KEY(admin_id, code_hash)) WITHOUT ROWID;
                ALTER TABLE admin_sessions ADD COLUMN second_step INTEGER NOT NULL DEFAULT 0;
                """))
        }
    }

    /// The TOTP secret (base32) and whether it is confirmed, with the last step accepted.
    static func totp(_ admin: Int64,
                     _ s: any SQLSession) throws -> (secret: String, confirmed: Bool, lastStep: Int64)? {
        let columns = Selection<Column>([.secret, .confirmed, .lastStep])
        return try s.one("SELECT \(columns.sql) FROM admin_totp WHERE admin_id = ?", [admin]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.secret) ?? "", (row.int64(.confirmed) ?? 0) != 0, row.int64(.lastStep) ?? 0)
        }
    }

    /// A new unconfirmed secret, replacing an unconfirmed one (a confirmed one stays until reset).
    static func begin(_ admin: Int64, secret: String, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO admin_totp(admin_id, secret, last_step, confirmed, created_at) VALUES (?, ?, 0, 0, ?)
            ON CONFLICT(admin_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at
                WHERE admin_totp.confirmed = 0
            """, admin, secret, now)
    }

    /// Takes time step `step` for the admin's code, once: false when a step as late was accepted already.
    static func take(_ admin: Int64, step: Int64, confirming: Bool, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE admin_totp SET last_step = ?, confirmed = 1 WHERE admin_id = ? AND last_step < ?"
                      + (confirming ? "" : " AND confirmed = 1"), step, admin, step) == 1
    }

    static func replaceRecoveryCodes(_ admin: Int64, hashes: [String], _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_recovery_codes WHERE admin_id = ?", admin)
        for hash in hashes {
            try s.execute("INSERT INTO admin_recovery_codes(admin_id, code_hash) VALUES (?, ?)", admin, hash)
        }
    }

    /// Uses a recovery code once: false when it is not one of the admin's, or was used.
    static func useRecoveryCode(_ admin: Int64, hash: String, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM admin_recovery_codes WHERE admin_id = ? AND code_hash = ?", admin, hash) == 1
    }

    static func recoveryCodesLeft(_ admin: Int64, _ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT COUNT(*) FROM admin_recovery_codes WHERE admin_id = ?", [admin]) ?? 0
    }

    /// Forgets every second factor of the admin.
    static func reset(_ admin: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_totp WHERE admin_id = ?", admin)
        try s.execute("DELETE FROM admin_recovery_codes WHERE admin_id = ?", admin)
    }

    static func setSecondStep(_ pending: Bool, session hash: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE admin_sessions SET second_step = ? WHERE token_hash = ?", pending ? 1 : 0, hash)
    }
}
