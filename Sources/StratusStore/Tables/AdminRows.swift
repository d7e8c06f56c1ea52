import StratusModel

/// `admins` (control database): the console's administrators, with their password hash and colour scheme; and
/// the control database's steps that make the administrators' tables (`admins`, `admin_sessions`, `audit`). Every
/// statement on `admins` is here.
enum AdminRows {
    enum Column: String, TableColumn {
        case id, email, theme, passwordHash = "password_hash", createdAt = "created_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v4-admins") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admins(id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                CREATE TABLE admin_sessions(token_hash TEXT PRIMARY KEY, admin_id INTEGER NOT NULL REFERENCES admins(id) ON DELETE CASCADE,
                    csrf TEXT NOT NULL, created_at INTEGER NOT NULL, last_seen INTEGER NOT NULL) WITHOUT ROWID;
                CREATE TABLE audit(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, admin TEXT NOT NULL, action TEXT NOT NULL,
                    container TEXT, environment TEXT, detail TEXT NOT NULL);
                """))
            // PostgreSQL has no NOCASE columns: one admin per email whatever its case, through an index on
            // lower(email).
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

    static func any(_ s: any SQLSession) throws -> Bool { try s.exists("SELECT 1 FROM admins LIMIT 1") }

    /// The administrator of this email (in any case), with their password hash.
    static func find(email: String, _ s: any SQLSession) throws -> (admin: Admin, passwordHash: String)? {
        let columns = Selection<Column>([.id, .email, .passwordHash])
        return try s.one("SELECT \(columns.sql) FROM admins WHERE \(s.dialect.caseInsensitive("email"))",
                         [email]) { r in
            let row = NamedRow(r, columns)
            return (Admin(id: row.int64(.id) ?? 0, email: row.string(.email) ?? ""), row.string(.passwordHash) ?? "")
        }
    }

    /// A new administrator's row; returns its id.
    static func insert(email: String, passwordHash: String, at now: Int64, _ s: any SQLSession) throws -> Int64 {
        try s.int64("INSERT INTO admins(email, password_hash, created_at) VALUES (?, ?, ?) RETURNING id", [email,
                passwordHash, now]) ?? 0
    }

    /// Every administrator, by email.
    static func all(_ s: any SQLSession) throws -> [Admin] {
        let columns = Selection<Column>([.id, .email])
        return try s.all("SELECT \(columns.sql) FROM admins ORDER BY email") { r in
            let row = NamedRow(r, columns)
            return Admin(id: row.int64(.id) ?? 0, email: row.string(.email) ?? "")
        }
    }

    /// Removes an administrator and their sessions.
    static func delete(id: Int64, _ s: any SQLSession) throws {
        try AdminSessions.endAll(admin: id, s)
        try s.execute("DELETE FROM admins WHERE id = ?", id)
    }

    static func setPassword(id: Int64, hash: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE admins SET password_hash = ? WHERE id = ?", hash, id)
    }

    static func setTheme(id: Int64, _ theme: ConsoleTheme, _ s: any SQLSession) throws {
        try s.execute("UPDATE admins SET theme = ? WHERE id = ?", theme.rawValue, id)
    }
}
