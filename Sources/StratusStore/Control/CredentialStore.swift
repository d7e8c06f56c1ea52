import Crypto
import Foundation
import StratusModel

/// API tokens, server-to-server keys and APNs keys, kept in the control database. Secrets are stored hashed.
public final class CredentialStore: Sendable {
    let control: any SQLDatabase
    let registry: EnvironmentRegistry
    /// Every API request authenticates; this keeps that from being a trip to the control database each time.
    /// Keyed by the secret's digest itself: its hex, which the database is asked with, is made only on a miss.
    let apiTokenCache = ExpiringCache<SHA256Digest, APIToken>()

    init(control: any SQLDatabase, registry: EnvironmentRegistry) {
        self.control = control
        self.registry = registry
    }

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

    /// The columns `apiToken(_:)` reads, in its order.
    private static let apiTokenColumns = "id, container, environment, name, allowed_origins, created_at, revoked"

    // MARK: API tokens

    /// Creates a token for one container environment. The secret (64 lowercase hex, the form CloudKit clients
    /// check) is returned once and only its hash is kept.
    public func createAPIToken(container: ContainerID, environment: ContainerEnvironment, name: String, allowedOrigins: [String] = []) throws(StratusError) -> (APIToken, secret: String) {
        guard try registry.containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 100 else { throw .badRequest("a token needs a name of 1 to 100 characters") }
        var origins: [String] = []
        for o in allowedOrigins {
            guard let origin = WebOrigin(o) else { throw .badRequest("allowed origin '\(o.prefix(100))' must look like https://example.com") }
            if !origins.contains(origin.description) { origins.append(origin.description) }
        }
        guard origins.count <= 100 else { throw .badRequest("a token allows at most 100 origins") }
        let secret = Secrets.hex(Secrets.randomBytes(32))
        let now = WallClock.nowMillis()
        let originsJSON = String(decoding: (try? JSONEncoder().encode(origins)) ?? Data("[]".utf8), as: UTF8.self)
        let id: Int64 = try guarded {
            try control.write { s in
                try s.int64("INSERT INTO api_tokens(container, environment, name, token_hash, allowed_origins, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                            [container.rawValue, environment.rawValue, trimmed, Secrets.tokenHash(secret), originsJSON, now]) ?? 0
            }
        }
        return (APIToken(id: id, container: container, environment: environment, name: trimmed, allowedOrigins: origins, createdAt: now, revoked: false), secret)
    }

    private static func apiToken(_ r: any SQLRow) -> APIToken? {
        guard let c = try? ContainerID(r.string(1) ?? ""), let e = ContainerEnvironment(rawValue: r.string(2) ?? "") else { return nil }
        // Canonical spellings, so that tokens saved before origins were canonicalised compare exactly too.
        let origins = ((try? JSONDecoder().decode([String].self, from: Data((r.string(4) ?? "[]").utf8))) ?? []).compactMap { WebOrigin($0)?.description }
        return APIToken(id: r.int64(0) ?? 0, container: c, environment: e, name: r.string(3) ?? "", allowedOrigins: origins, createdAt: r.int64(5) ?? 0,
                        revoked: r.bool(6) ?? false)
    }

    public func apiTokens(container: ContainerID, environment: ContainerEnvironment) throws(StratusError) -> [APIToken] {
        try guarded {
            try control.read { s in
                try s.all("SELECT \(Self.apiTokenColumns) FROM api_tokens WHERE container = ? AND environment = ? ORDER BY id",
                          [container.rawValue, environment.rawValue], CredentialStore.apiToken)
            }
        }
    }

    public func revokeAPIToken(id: Int64, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("UPDATE api_tokens SET revoked = 1 WHERE id = ? AND container = ?", id, container.rawValue) == 1 else {
                    throw StratusError(.notFound, "no such token")
                }
            }
        }
        credentialsChanged()
    }

    /// The live token a secret belongs to, or nil (unknown or revoked).
    public func authenticateAPIToken(_ secret: String) throws(StratusError) -> APIToken? {
        guard secret.utf8.count <= 256 else { return nil }
        let digest = SHA256.hash(data: Data(secret.utf8))
        if let hit = apiTokenCache.value(for: digest) { return hit }
        let hash = Secrets.hex(digest)
        let token = try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.apiTokenColumns) FROM api_tokens WHERE token_hash = ? AND revoked = 0", [hash], CredentialStore.apiToken)
            }
        }
        // Only live tokens are kept: one created a moment ago (here or by the CLI) works at once.
        if let token { apiTokenCache.set(token, for: digest) }
        return token
    }

    /// Forgets cached tokens after a revocation or deletion, here and on every other server on the same
    /// PostgreSQL database, so that it takes effect on the next request.
    func credentialsChanged() {
        apiTokenCache.removeAll()
        registry.invalidation.publish("credentials")
    }
}
