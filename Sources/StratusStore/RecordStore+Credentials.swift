import Crypto
import Foundation
import StratusModel

/// API tokens, container users and web auth tokens, kept in the control database. Secrets are stored hashed.
extension RecordStore {
    static func registerCredentialMigrations(_ m: inout SQLMigrations) {
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
    }

    /// The columns `apiToken(_:)` reads, in its order.
    private static let apiTokenColumns = "id, container, environment, name, allowed_origins, created_at, revoked"
    /// The columns `user(_:)` reads, in its order (and the password hash last).
    private static let userColumns = "user_record_name, email, first_name, last_name, discoverable, discoverability_changed_at, password_hash"

    // MARK: API tokens

    /// Creates a token for one container environment. The secret (64 lowercase hex, the form CloudKit clients
    /// check) is returned once and only its hash is kept.
    public func createAPIToken(container: ContainerID, environment: ContainerEnvironment, name: String, allowedOrigins: [String] = []) throws(StratusError) -> (APIToken, secret: String) {
        guard try containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
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
                          [container.rawValue, environment.rawValue], RecordStore.apiToken)
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
                try s.one("SELECT \(Self.apiTokenColumns) FROM api_tokens WHERE token_hash = ? AND revoked = 0", [hash], RecordStore.apiToken)
            }
        }
        // Only live tokens are kept: one created a moment ago (here or by the CLI) works at once.
        if let token { apiTokenCache.set(token, for: digest) }
        return token
    }

    /// Forgets cached credentials after a revocation or deletion, so it takes effect on the next request.
    func credentialsChanged() {
        apiTokenCache.removeAll()
        webTokenCache.removeAll()
        invalidation.publish("credentials")
    }

    // MARK: users

    public func createUser(container: ContainerID, email: String, password: String, firstName: String = "", lastName: String = "",
                           discoverable: Bool = false) throws(StratusError) -> ContainerUser {
        guard try containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard email.count <= 254, email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@") else { throw .badRequest("'\(email.prefix(100))' is not an email address") }
        guard password.count >= 8, password.utf8.count <= 1024 else { throw .badRequest("a password needs 8 to 1024 characters") }
        let now = WallClock.nowMillis()
        let user = ContainerUser(userRecordName: "_" + Secrets.hex(Secrets.randomBytes(16)), email: email, firstName: firstName, lastName: lastName,
                                 discoverable: discoverable, discoverabilityChangedAt: discoverable ? now : nil)
        let hash = try guarded { try Secrets.hashPassword(password) }
        try guarded {
            try control.write { s in
                if try s.exists("SELECT 1 FROM users WHERE container = ? AND \(s.dialect.caseInsensitive("email"))", [container.rawValue, email]) {
                    throw StratusError(.exists, "a user with this email already exists")
                }
                try s.execute("""
                    INSERT INTO users(container, user_record_name, email, password_hash, first_name, last_name, created_at,
                                      discoverable, discoverability_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, container.rawValue, user.userRecordName, email, hash, firstName, lastName, now, discoverable, user.discoverabilityChangedAt)
            }
        }
        // Shares that invited this address before it had an account are now its own to accept.
        for e in ContainerEnvironment.allCases { try environment(container, e).claimInvitations(email: email, user: user.userRecordName) }
        return user
    }

    /// Creates an account unless the address already has one, costing a password hash either way, so that neither
    /// the answer nor its time tells whether the address was known. Whether an account was created.
    @discardableResult
    public func signUp(container: ContainerID, email: String, password: String, firstName: String = "", lastName: String = "",
                       discoverable: Bool = false) throws(StratusError) -> Bool {
        do {
            _ = try createUser(container: container, email: email, password: password, firstName: firstName, lastName: lastName, discoverable: discoverable)
            return true
        } catch where error.code == .exists {
            return false
        }
    }

    private static func user(_ r: any SQLRow) -> ContainerUser {
        ContainerUser(userRecordName: r.string(0) ?? "", email: r.string(1) ?? "", firstName: r.string(2) ?? "", lastName: r.string(3) ?? "",
                      discoverable: r.bool(4) ?? false, discoverabilityChangedAt: r.int64(5))
    }

    /// The user's answer to "may others who know my email find me?", recorded with its time.
    public func setDiscoverable(container: ContainerID, userRecordName: String, _ discoverable: Bool) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("UPDATE users SET discoverable = ?, discoverability_changed_at = ? WHERE container = ? AND user_record_name = ?",
                                    discoverable, WallClock.nowMillis(), container.rawValue, userRecordName) == 1 else {
                    throw StratusError(.notFound, "no such user")
                }
            }
        }
    }

    /// The email of the Development one-click test user, which anyone can become: it is never discoverable and
    /// discovers nobody.
    public static func testUserEmail(_ container: ContainerID) -> String { "test-user@\(container.rawValue)" }

    /// The container's Development test user, made the first time it is asked for (the sign-in page's "continue as a
    /// test user", the console's "Act as").
    public func testUser(container: ContainerID) throws(StratusError) -> ContainerUser {
        let email = Self.testUserEmail(container)
        if let u = try user(container: container, email: email) { return u }
        do {
            return try createUser(container: container, email: email, password: Secrets.randomPassword(), firstName: "Test", lastName: "User")
        } catch where error.code == .exists {
            // Made meanwhile by another request.
            guard let u = try user(container: container, email: email) else { throw error }
            return u
        }
    }

    public func users(container: ContainerID) throws(StratusError) -> [ContainerUser] {
        try guarded {
            try control.read { s in
                try s.all("SELECT \(Self.userColumns) FROM users WHERE container = ? ORDER BY email", [container.rawValue], RecordStore.user)
            }
        }
    }

    /// When each user of the container was created and last signed in (the newest web auth token they hold; nil when
    /// none is left), by user record name: the console's Users page.
    public func userActivity(container: ContainerID) throws(StratusError) -> [String: (created: Int64, lastSignIn: Int64?)] {
        try guarded {
            try control.read { s in
                let rows = try s.all("""
                    SELECT u.user_record_name, u.created_at, MAX(w.created_at) FROM users u
                    LEFT JOIN web_tokens w ON w.container = u.container AND w.user_record_name = u.user_record_name
                    WHERE u.container = ? GROUP BY u.user_record_name, u.created_at
                    """, [container.rawValue]) { r in (r.string(0) ?? "", (created: r.int64(1) ?? 0, lastSignIn: r.int64(2))) }
                return Dictionary(rows, uniquingKeysWith: { a, _ in a })
            }
        }
    }

    public func user(container: ContainerID, userRecordName: String) throws(StratusError) -> ContainerUser? {
        try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.userColumns) FROM users WHERE container = ? AND user_record_name = ?", [container.rawValue, userRecordName], RecordStore.user)
            }
        }
    }

    /// The user an operator names: by email address (anything with an `@`) or by user record name.
    public func user(container: ContainerID, named name: String) throws(StratusError) -> ContainerUser? {
        name.contains("@") ? try user(container: container, email: name) : try user(container: container, userRecordName: name)
    }

    public func user(container: ContainerID, email: String) throws(StratusError) -> ContainerUser? {
        try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.userColumns) FROM users WHERE container = ? AND \(s.dialect.caseInsensitive("email"))", [container.rawValue, email], RecordStore.user)
            }
        }
    }

    /// The user whose email and password these are, or nil. Unknown emails cost a hash too, so timing does not tell.
    public func authenticateUser(container: ContainerID, email: String, password: String) throws(StratusError) -> ContainerUser? {
        let found: (ContainerUser, String)? = try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.userColumns) FROM users WHERE container = ? AND \(s.dialect.caseInsensitive("email"))", [container.rawValue, email]) { r in
                    (RecordStore.user(r), r.string(6) ?? "")
                }
            }
        }
        guard let (user, hash) = found else {
            _ = Secrets.verifyPassword(password, hash: RecordStore.decoyHash)
            return nil
        }
        return Secrets.verifyPassword(password, hash: hash) ? user : nil
    }

    static let decoyHash = (try? Secrets.hashPassword("decoy password")) ?? ""

    /// The time a password check takes, spent where there is no account to check against (a share link that
    /// is nobody's): an answer that came sooner would tell the link apart.
    public static func spendPasswordCheck(_ password: String) { _ = Secrets.verifyPassword(password, hash: decoyHash) }

    // MARK: web auth tokens

    /// CloudKit's lifetimes: 30 minutes, or 14 days when the user asked to stay signed in.
    public static let shortSession: Int64 = 30 * 60 * 1000
    public static let longSession: Int64 = 14 * 24 * 3600 * 1000

    /// A web auth token for one user in one container environment (CloudKit's are per environment too).
    public func createWebAuthToken(container: ContainerID, environment: ContainerEnvironment, userRecordName: String,
                                   lifetime: Int64 = RecordStore.shortSession) throws(StratusError) -> String {
        let token = Data(Secrets.randomBytes(32)).base64EncodedString()
        let now = WallClock.nowMillis()
        try guarded {
            try control.write { s in
                try s.execute("DELETE FROM web_tokens WHERE expires_at < ?", now)
                try s.execute("INSERT INTO web_tokens(token_hash, container, environment, user_record_name, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                              Secrets.tokenHash(token), container.rawValue, environment.rawValue, userRecordName, now + lifetime, now)
            }
        }
        return token
    }

    /// The user a web auth token signs in, with when it expires; nil if unknown, expired, or another container's or
    /// environment's.
    public func authenticateWebAuthToken(_ token: String, container: ContainerID, environment: ContainerEnvironment) throws(StratusError) -> (user: String, expiresAt: Int64)? {
        guard token.utf8.count <= 512 else { return nil }
        let digest = SHA256.hash(data: Data(token.utf8))
        let key = WebTokenKey(digest: digest, container: container, environment: environment)
        let session: WebAuthSession?
        if let hit = webTokenCache.value(for: key) { session = hit } else {
            let hash = Secrets.hex(digest)
            session = try guarded {
                try control.read { s in
                    try s.one("SELECT user_record_name, expires_at FROM web_tokens WHERE token_hash = ? AND container = ? AND environment = ?",
                              [hash, container.rawValue, environment.rawValue]) {
                        WebAuthSession(user: $0.string(0) ?? "", expiresAt: $0.int64(1) ?? 0)
                    }
                }
            }
            if let session { webTokenCache.set(session, for: key) }
        }
        guard let session, session.expiresAt > WallClock.nowMillis() else { return nil }
        return (session.user, session.expiresAt)
    }

    /// Signs one session out: the web auth token, and the web courier tokens it made, stop working at once; the
    /// user's open notification streams end at their next wake.
    public func revokeWebAuthToken(_ token: String, container only: ContainerID? = nil) throws(StratusError) {
        let hash = Secrets.tokenHash(token)
        let owner: (ContainerID, ContainerEnvironment, String)? = try guarded {
            try control.write { s in
                let row = try s.one("SELECT container, environment, user_record_name FROM web_tokens WHERE token_hash = ?", [hash]) { r in
                    (try? ContainerID(r.string(0) ?? "")).flatMap { c in ContainerEnvironment(rawValue: r.string(1) ?? "").map { (c, $0, r.string(2) ?? "") } }
                }
                guard let row, only == nil || row.0 == only else { return nil }
                try s.execute("DELETE FROM web_tokens WHERE token_hash = ?", hash)
                return row
            }
        }
        credentialsChanged()
        guard let (container, environment, user) = owner else { return }
        let env = try self.environment(container, environment)
        try env.revokeCourierTokens(user: user, madeWith: hash)
        // The devices this session registered stop hearing the user's notifications: they are signed out.
        try env.removeAPNsDevices(user: user, madeWith: hash)
        bell.ring([env.bellKey(user)])
    }

    /// Whether the session whose web auth token hashes to `hash` is still signed in.
    public func webSessionIsLive(hash: String) throws(StratusError) -> Bool {
        try guarded { try control.read { s in try s.exists("SELECT 1 FROM web_tokens WHERE token_hash = ? AND expires_at > ?", [hash, WallClock.nowMillis()]) } }
    }

    /// Signs a user out everywhere: every web auth token and web courier token of theirs in the container, in
    /// both environments. Returns how many web auth tokens there were.
    @discardableResult
    public func signOutEverywhere(container: ContainerID, userRecordName: String) throws(StratusError) -> Int {
        let n = try guarded {
            try control.write { s in try s.execute("DELETE FROM web_tokens WHERE container = ? AND user_record_name = ?", container.rawValue, userRecordName) }
        }
        credentialsChanged()
        for e in ContainerEnvironment.allCases {
            let env = try environment(container, e)
            try env.revokeCourierTokens(user: userRecordName, madeWith: nil)
            try env.removeAPNsDevices(user: userRecordName, madeWith: nil)
            bell.ring([env.bellKey(userRecordName)])
        }
        return n
    }
}
