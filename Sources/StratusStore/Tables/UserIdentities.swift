import StratusModel

/// `user_identities` (control database): which user each provider's subject is, keyed by the container and the
/// token's `(iss, sub)`, never by the provider's name in Stratus. Every statement on it is here, and the migration
/// that made it (with the providers and the nonces).
enum UserIdentities {
    enum Column: String, TableColumn {
        case container, issuer, subject, userRecordName = "user_record_name", email, createdAt = "created_at"
        case lastUsedAt = "last_used_at"
    }

    /// Each container's ways of making accounts (`containers.sign_up`), the web sign-ins under way
    /// (`sign_in_flows`), and passkeys with their ceremonies come with them. A user signed in by a
    /// provider may have no email (managed Apple Accounts, or one that is another account's
    /// until they are linked), so `users.email` becomes optional: SQLite makes the table anew to drop NOT NULL.
    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v27-identities") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE identity_providers(container TEXT NOT NULL, name TEXT NOT NULL, issuer TEXT NOT NULL, client_ids TEXT NOT NULL,
                    client_secret TEXT, created_at INTEGER NOT NULL, PRIMARY KEY(container, name)) WITHOUT ROWID;
                CREATE TABLE user_identities(container TEXT NOT NULL, issuer TEXT NOT NULL, subject TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    email TEXT, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, PRIMARY KEY(container, issuer, subject)) WITHOUT ROWID;
                CREATE INDEX user_identities_user ON user_identities(container, user_record_name);
                CREATE TABLE used_nonces(digest TEXT PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX used_nonces_expiry ON used_nonces(expires_at);
                ALTER TABLE containers ADD COLUMN sign_up TEXT;
                CREATE TABLE sign_in_flows(state TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL,
                    provider TEXT NOT NULL, nonce TEXT NOT NULL, verifier TEXT NOT NULL, callback TEXT, origin TEXT,
                    binding TEXT NOT NULL, address TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX sign_in_flows_expiry ON sign_in_flows(expires_at);
                CREATE INDEX sign_in_flows_address ON sign_in_flows(address);
                CREATE TABLE passkeys(container TEXT NOT NULL, credential_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    public_key BLOB NOT NULL, sign_count INTEGER NOT NULL, created_at INTEGER NOT NULL,
                        last_used_at INTEGER NOT NULL,
                    PRIMARY KEY(container, credential_id)) WITHOUT ROWID;
                CREATE INDEX passkeys_user ON passkeys(container, user_record_name);
                CREATE TABLE passkey_challenges(challenge TEXT PRIMARY KEY, container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    purpose TEXT NOT NULL, user_record_name TEXT, callback TEXT, origin TEXT, binding TEXT NOT NULL,
                    address TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX passkey_challenges_expiry ON passkey_challenges(expires_at);
                CREATE INDEX passkey_challenges_address ON passkey_challenges(address);
                """))
            if s.dialect == .postgres {
                try s.script("ALTER TABLE users ALTER COLUMN email DROP NOT NULL")
                return
            }
            try s.script("""
                CREATE TABLE users_optional_email(container TEXT NOT NULL, user_record_name TEXT NOT NULL, email TEXT COLLATE NOCASE,
                    password_hash TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, created_at INTEGER NOT NULL,
                    discoverable INTEGER NOT NULL DEFAULT 0, discoverability_changed_at INTEGER,
                    PRIMARY KEY(container, user_record_name), UNIQUE(container, email)) WITHOUT ROWID;
                INSERT INTO users_optional_email SELECT container, user_record_name, email, password_hash, first_name, last_name, created_at,
                    discoverable, discoverability_changed_at FROM users;
                DROP TABLE users;
                ALTER TABLE users_optional_email RENAME TO users;
                """)
        }
    }

    static func user(issuer: String, subject: String, container: ContainerID, _ s: any SQLSession) throws -> String? {
        try s.one("SELECT user_record_name FROM user_identities WHERE container = ? AND issuer = ? AND subject = ?",
                  [container.rawValue, issuer, subject]) { NamedRow($0, Selection<Column>([.userRecordName])).string(.userRecordName) }
    }

    /// Links a subject to a user; false when the subject is someone's already.
    static func link(issuer: String, subject: String, user: String, email: String?, container: ContainerID,
                     at now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            INSERT INTO user_identities(container, issuer, subject, user_record_name, email, created_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(container, issuer, subject) DO NOTHING
            """, container.rawValue, issuer, subject, user, email, now, now) == 1
    }

    static func used(issuer: String, subject: String, container: ContainerID, at now: Int64,
                     _ s: any SQLSession) throws {
        try s.execute("UPDATE user_identities SET last_used_at = ? WHERE container = ? AND issuer = ? AND subject = ?",
                      now, container.rawValue, issuer, subject)
    }

    /// Every user's issuers, oldest link first.
    static func all(container: ContainerID, _ s: any SQLSession) throws -> [(user: String, issuer: String)] {
        let columns = Selection<Column>([.userRecordName, .issuer])
        return try s.all("SELECT \(columns.sql) FROM user_identities WHERE container = ? ORDER BY created_at",
                         [container.rawValue]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.userRecordName) ?? "", row.string(.issuer) ?? "")
        }
    }

    /// Unlinks a user's subject of `issuer`; false when there was none.
    static func unlink(issuer: String, user: String, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM user_identities WHERE container = ? AND user_record_name = ? AND issuer = ?",
                      container.rawValue, user, issuer) > 0
    }

    /// The issuers a user signs in with, oldest link first.
    static func issuers(of user: String, container: ContainerID, _ s: any SQLSession) throws -> [String] {
        try s.all("SELECT issuer FROM user_identities WHERE container = ? AND user_record_name = ? ORDER BY created_at",
                  [container.rawValue, user]) { NamedRow($0, Selection<Column>([.issuer])).string(.issuer) }
    }
}
