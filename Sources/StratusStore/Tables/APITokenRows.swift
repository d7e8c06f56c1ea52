import Foundation
import StratusModel

/// `api_tokens` (control database): each container environment's API tokens, by the hash of their secret, with the
/// origins a browser may use them from. Every statement on it is here.
enum APITokenRows {
    enum Column: String, TableColumn {
        case id, container, environment, name, revoked, tokenHash = "token_hash"
        case allowedOrigins = "allowed_origins", createdAt = "created_at"
    }

    /// The control database's first steps for credentials and accounts: `api_tokens`, and `users` and `web_tokens`
    /// (whose statements are `UserRows`' and `WebTokens`').
    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v2-credentials") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE api_tokens(id INTEGER PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE, allowed_origins TEXT NOT NULL, created_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
                CREATE INDEX api_tokens_container ON api_tokens(container, environment);
                CREATE TABLE users(container TEXT NOT NULL, user_record_name TEXT NOT NULL, email TEXT NOT NULL COLLATE NOCASE,
                    password_hash TEXT NOT NULL, first_name TEXT NOT NULL, last_name TEXT NOT NULL, created_at INTEGER NOT NULL,
                    PRIMARY KEY(container, user_record_name), UNIQUE(container, email)) WITHOUT ROWID;
                CREATE TABLE web_tokens(token_hash TEXT PRIMARY KEY, container TEXT NOT NULL, user_record_name TEXT NOT NULL,
                    expires_at INTEGER NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX web_tokens_expiry ON web_tokens(expires_at);
                """))
            // PostgreSQL has no NOCASE columns: one user per email whatever its case, through an index on lower(email).
            if s.dialect == .postgres { try s.script("CREATE UNIQUE INDEX users_email_lower ON users(container, lower(email))") }
        }
        m.add("v5-discoverability", ddl: """
            ALTER TABLE users ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE users ADD COLUMN discoverability_changed_at INTEGER;
            """)
        // A web auth token signs its user in to one environment. Tokens made before could have come from either:
        // they keep working in Development only, and a Production user signs in again.
        m.add("v7-web-token-environment", ddl: """
            ALTER TABLE web_tokens ADD COLUMN environment TEXT NOT NULL DEFAULT 'development';
            CREATE INDEX web_tokens_user ON web_tokens(container, user_record_name);
            """)
        // Token families (see `WebAuthSession`): a token made before is the first of its own family, so the courier
        // tokens and devices bound to its hash stay bound to its family.
        m.add("v26-web-token-families", ddl: """
            ALTER TABLE web_tokens ADD COLUMN family TEXT;
            UPDATE web_tokens SET family = token_hash;
            CREATE INDEX web_tokens_family ON web_tokens(family);
            """)
    }

    private static let token = Selection<Column>([.id, .container, .environment, .name, .allowedOrigins, .createdAt,
                                                  .revoked])

    private static func token(_ r: any SQLRow) -> APIToken? {
        let row = NamedRow(r, token)
        guard let c = try? ContainerID(row.string(.container) ?? ""), let e = ContainerEnvironment(rawValue: row.string(.environment) ?? "") else { return nil }
        // Canonical spellings, so that tokens saved before origins were canonicalised compare exactly too.
        let origins = ((try? JSONDecoder().decode([String].self,
                                                  from: Data((row.string(.allowedOrigins) ?? "[]").utf8))) ?? []).compactMap { WebOrigin($0)?.description }
        return APIToken(id: row.int64(.id) ?? 0, container: c, environment: e, name: row.string(.name) ?? "",
                        allowedOrigins: origins,
                        createdAt: row.int64(.createdAt) ?? 0, revoked: row.bool(.revoked) ?? false)
    }

    /// A new token's row; returns its id.
    static func insert(container: ContainerID, environment: ContainerEnvironment, name: String, hash: String,
                       origins: String, at now: Int64,
                       _ s: any SQLSession) throws -> Int64 {
        try s.int64("INSERT INTO api_tokens(container, environment, name, token_hash, allowed_origins, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                    [container.rawValue, environment.rawValue, name, hash, origins, now]) ?? 0
    }

    /// A container environment's tokens, revoked ones included, oldest first.
    static func all(container: ContainerID, environment: ContainerEnvironment,
                    _ s: any SQLSession) throws -> [APIToken] {
        try s.all("SELECT \(token.sql) FROM api_tokens WHERE container = ? AND environment = ? ORDER BY id",
                  [container.rawValue, environment.rawValue], token)
    }

    /// Revokes a token of the container; false when it has none of that id.
    static func revoke(id: Int64, container: ContainerID, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE api_tokens SET revoked = 1 WHERE id = ? AND container = ?", id, container.rawValue) == 1
    }

    /// The live token whose secret hashes to `hash`.
    static func live(hash: String, _ s: any SQLSession) throws -> APIToken? {
        try s.one("SELECT \(token.sql) FROM api_tokens WHERE token_hash = ? AND revoked = 0", [hash], token)
    }
}
