import Crypto
import Foundation
import GRDB
import StratusModel
import StratusPostgres
import Synchronization

/// The whole store under one data directory: a small control database listing containers, and one SQLite
/// file per container environment (`containers/<id>/development.sqlite`, `…/production.sqlite`), so
/// environments are isolated, back up as files, and a reset never touches another container.
public final class RecordStore: Sendable {
    /// Where a SQLite store keeps its files; nil for a store on PostgreSQL, which keeps nothing on local disk.
    public let dataDirectory: URL?
    /// The PostgreSQL pool of a store on PostgreSQL (`--database-url`), shared by everything it opens.
    let postgres: PostgresPool?
    /// How every database file of this store commits (see `Durability`).
    public let durability: Durability
    /// Each container environment's storage quota in bytes (records and assets); nil for none.
    public let quotaBytes: Int64?
    /// What one user's data may take of it (their private databases, the public records they created, their
    /// subscriptions): by default a tenth of `quotaBytes`, so that no one user can fill an environment.
    public let userQuotaBytes: Int64?
    /// Wakes notification listeners and the webhook deliverer when a commit concerns them.
    public let bell = NotificationBell()
    /// The control database: containers, credentials, keys, admins, faults.
    let control: any SQLDatabase
    private let open: Mutex<[EnvironmentKey: EnvironmentStore]> = Mutex([:])
    /// The faults switched on, as read at most a quarter of a second ago (see `claimFault`).
    let faultCache = Mutex<(at: ContinuousClock.Instant, faults: [Fault])?>(nil)
    /// Held while an environment is being opened (see `environment(_:_:)`).
    private let opening = Mutex(())
    /// Every API request authenticates; these keep that from being two trips to the control database
    /// (one serial connection) each time. Keyed by the secret's hash; cleared by every change made here.
    /// Keyed by the digest itself: its hex, which the database is asked with, is made only on a miss.
    let apiTokenCache = ExpiringCache<SHA256Digest, APIToken>()
    let webTokenCache = ExpiringCache<WebTokenKey, WebAuthSession>()

    /// An open environment's key, hashed without building a string per request.
    struct EnvironmentKey: Hashable {
        let container: ContainerID
        let environment: ContainerEnvironment
    }

    /// A web auth token is looked up for one container environment.
    struct WebTokenKey: Hashable, Sendable {
        let digest: SHA256Digest
        let container: ContainerID
        let environment: ContainerEnvironment
    }
    /// On PostgreSQL: what one server changes, the others stop caching (see `CacheInvalidation`).
    let invalidation = CacheInvalidation()

    /// Retention, subscription caps and the notification log's budget of every environment.
    public let notificationPolicy: NotificationPolicy
    /// How long each user's notifications are kept, in milliseconds (`serve --notification-retention-days`).
    public var notificationRetention: Int64 { notificationPolicy.retention }
    /// When environments build composite indexes for the query shapes they see.
    public let autoIndexPolicy: AutoIndexPolicy
    /// Files and directories of the data directory that others could read when it opened, and that it made private.
    public let loosened: [String]

    public init(dataDirectory: URL, durability: Durability = .full, quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil,
                notifications: NotificationPolicy = NotificationPolicy(),
                autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy()) throws(StratusError) {
        CacheBudget.applyDefaultOnce()
        self.userQuotaBytes = userQuotaBytes ?? quotaBytes.map { $0 / 10 }
        self.autoIndexPolicy = autoIndexPolicy
        self.dataDirectory = dataDirectory
        self.notificationPolicy = notifications
        self.quotaBytes = quotaBytes
        self.durability = durability
        postgres = nil
        try guarded { try PrivateFiles.directory(dataDirectory) }
        loosened = PrivateFiles.secure(dataDirectory)
        control = try guarded {
            var config = Configuration()
            config.busyMode = .timeout(10)
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)") }
            let q = try DatabaseQueue(path: dataDirectory.appendingPathComponent("stratus.sqlite").path, configuration: config)
            PrivateFiles.file(dataDirectory.appendingPathComponent("stratus.sqlite"))
            try RecordStore.controlMigrations.migrate(q)
            return SQLiteDatabase(GatedDatabase(q))
        }
    }

    /// A store on PostgreSQL (`postgres://…`): the control data in the schema `stratus`. Several servers may
    /// share one database; migrations run once, under an advisory lock.
    public init(databaseURL: String, quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil, notifications: NotificationPolicy = NotificationPolicy(),
                autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy(), poolSize: Int = 16) throws(StratusError) {
        self.userQuotaBytes = userQuotaBytes ?? quotaBytes.map { $0 / 10 }
        self.autoIndexPolicy = autoIndexPolicy
        self.loosened = []
        self.dataDirectory = nil
        self.notificationPolicy = notifications
        self.quotaBytes = quotaBytes
        // PostgreSQL's own durability (synchronous_commit, replication) decides what a commit means there.
        self.durability = .full
        let pool = PostgresPool(url: databaseURL, capacity: poolSize)
        let db = PostgresDatabase(pool: pool, schema: "stratus")
        try guarded { try RecordStore.controlMigrations.migrate(db) }
        postgres = pool
        control = db
        invalidation.start(pool: pool) { [weak self] what in self?.heard(what) }
    }

    /// What another server (or this one) published on the invalidation channel.
    private func heard(_ what: String) {
        if let keys = CacheInvalidation.bellKeys(what) { bell.ring(keys); return }
        if what == "credentials" || what == "all" { apiTokenCache.removeAll(); webTokenCache.removeAll() }
        if what == "faults" || what == "all" { faultCache.withLock { $0 = nil } }
        let parts = what.split(separator: " ", maxSplits: 1).map(String.init)
        for env in openEnvironments() where what == "all" || (parts.count == 2 && env.postgresSchema == parts[1]) {
            if what == "all" || parts[0] == "subscriptions" { env.dropSubscriptionIndex() }
            if what == "all" || parts[0] == "webhooks" { env.dropWebhookCaches() }
        }
    }

    /// The control database's schema steps, in the order they were introduced.
    static let controlMigrations: SQLMigrations = {
        var m = SQLMigrations()
        m.add("v1", ddl: "CREATE TABLE containers(id TEXT PRIMARY KEY, created_at INTEGER NOT NULL) WITHOUT ROWID")
        registerCredentialMigrations(&m)
        registerServerKeyMigrations(&m)
        registerAdminMigrations(&m)
        registerFaultMigrations(&m)
        registerAPNsMigrations(&m)
        registerDeviceCookieMigrations(&m)
        return m
    }()

    func directory(of id: ContainerID) -> URL {
        (dataDirectory ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("containers").appendingPathComponent(id.rawValue)
    }

    // MARK: containers

    public func createContainer(_ id: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("INSERT INTO containers(id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING", id.rawValue, WallClock.nowMillis()) == 1 else {
                    throw StratusError(.exists, "container \(id) already exists")
                }
            }
        }
        for env in ContainerEnvironment.allCases { _ = try environment(id, env) }
    }

    public func containers() throws(StratusError) -> [ContainerInfo] {
        try guarded {
            try control.read { s in
                try s.all("SELECT id, created_at FROM containers ORDER BY id") { r in
                    (try? ContainerID(r.string(0) ?? "")).map { ContainerInfo(id: $0, createdAt: r.int64(1) ?? 0) }
                }
            }
        }
    }

    public func containerExists(_ id: ContainerID) throws(StratusError) -> Bool {
        try guarded { try control.read { s in try s.exists("SELECT 1 FROM containers WHERE id = ?", [id.rawValue]) } }
    }

    /// Deletes a container with both environments, their records, schema and assets.
    public func deleteContainer(_ id: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("DELETE FROM containers WHERE id = ?", id.rawValue) == 1 else { throw StratusError(.notFound, "container \(id) does not exist") }
                for table in ["api_tokens", "users", "web_tokens", "server_keys"] {
                    try s.execute("DELETE FROM \(table) WHERE container = ?", id.rawValue)
                }
            }
        }
        let closing = open.withLock { cache in ContainerEnvironment.allCases.compactMap { env in cache.removeValue(forKey: EnvironmentKey(container: id, environment: env)) } }
        for env in closing { env.close() }
        credentialsChanged()
        // On PostgreSQL the environments are schemas: they go in one statement each, records, types and all.
        if let postgres {
            try guarded {
                try postgres.withConnection { c in
                    for env in ContainerEnvironment.allCases { try c.executeScript("DROP SCHEMA IF EXISTS \(PostgresIdentifier.quoted(Self.schemaName(id, env))) CASCADE") }
                }
            }
        }
        if dataDirectory != nil { try? FileManager.default.removeItem(at: directory(of: id)) }
    }

    /// The container environments this process has opened (the ones its writes can have queued work in).
    public func openEnvironments() -> [EnvironmentStore] { open.withLock { Array($0.values) } }

    /// Closes the open environments; the next use opens them afresh (their catalog, secret and caches read anew,
    /// as after `stratus migrate` wrote them underneath).
    func forgetEnvironments() {
        let envs = open.withLock { o in defer { o = [:] }; return Array(o.values) }
        for env in envs { env.close() }
    }

    /// Closes every database file this store opened (a server's shutdown): what is still referenced elsewhere
    /// answers errors from now on instead of holding files open until the process ends.
    public func close() {
        let envs = open.withLock { o in defer { o.removeAll() }; return Array(o.values) }
        // Each closes once the operations inside it are done (see GatedDatabase).
        for env in envs { env.close() }
        invalidation.stop()
        control.close()
        postgres?.close()
    }

    /// The store of one container environment, opened once and shared.
    ///
    /// Opening runs the environment's migrations, so it happens one at a time: the first requests after a start
    /// arrive together, and two openings of one file racing through the same migration failed every request with
    /// "duplicate column" after an upgrade.
    public func environment(_ id: ContainerID, _ env: ContainerEnvironment) throws(StratusError) -> EnvironmentStore {
        let key = EnvironmentKey(container: id, environment: env)
        if let s = open.withLock({ $0[key] }) { return s }
        return try opening.withLock { _ throws(StratusError) -> EnvironmentStore in
            if let s = open.withLock({ $0[key] }) { return s }
            guard try containerExists(id) else { throw StratusError(.notFound, "container \(id) does not exist") }
            let dir = directory(of: id)
            let backend: EnvironmentStore.Backend = postgres.map { .postgres(pool: $0, schema: Self.schemaName(id, env)) }
                ?? .sqlite(file: dir.appendingPathComponent("\(env.rawValue).sqlite"), durability: durability)
            let store = try guarded {
                try EnvironmentStore(container: id, environment: env, backend: backend,
                                     assetsDirectory: dir.appendingPathComponent("\(env.rawValue)-assets"), quotaBytes: quotaBytes,
                                     userQuotaBytes: userQuotaBytes,
                                     notifications: notificationPolicy, bell: bell, autoIndexPolicy: autoIndexPolicy,
                                     peers: postgres == nil ? nil : invalidation)
            }
            open.withLock { $0[key] = store }
            return store
        }
    }

    /// The PostgreSQL schema of a container environment: `e_` and 24 hex digits of a hash of its identity (container
    /// identifiers can be longer than PostgreSQL's 63-byte names, and may hold any character).
    static func schemaName(_ id: ContainerID, _ env: ContainerEnvironment) -> String {
        "e_" + Secrets.hex(SHA256.hash(data: Data("\(id.rawValue)/\(env.rawValue)".utf8))).prefix(24)
    }

    // MARK: schema lifecycle

    /// The changes a deploy would make to Production, with refusals explained.
    public func deployPlan(_ id: ContainerID) throws(StratusError) -> SchemaDiff {
        let dev = try environment(id, .development).schema()
        let prod = try environment(id, .production)
        return try prod.diff(to: dev, protecting: prod.schema())
    }

    /// Copies the Development schema to Production (types, fields, indexes, roles, grants; never records),
    /// refusing the whole deploy if it would remove or retype anything Production has.
    @discardableResult
    public func deploy(_ id: ContainerID, by who: String) throws(StratusError) -> SchemaDiff {
        let dev = try environment(id, .development).schema()
        let prod = try environment(id, .production)
        return try prod.applySchema(dev, protecting: prod.schema(), deployedBy: who)
    }

    /// Replaces the Development schema with `schema`, refusing anything that would lose Production's types or fields.
    @discardableResult
    public func importSchema(_ schema: Schema, into id: ContainerID) throws(StratusError) -> SchemaDiff {
        let prod = try environment(id, .production).schema()
        return try environment(id, .development).applySchema(schema, protecting: prod)
    }

    public func importPlan(_ schema: Schema, into id: ContainerID) throws(StratusError) -> SchemaDiff {
        let prod = try environment(id, .production).schema()
        return try environment(id, .development).diff(to: schema, protecting: prod)
    }

    /// Deletes all Development records and zones; the schema goes back to Production's (empty if never deployed).
    public func resetDevelopment(_ id: ContainerID) throws(StratusError) {
        let prod = try environment(id, .production).schema()
        try environment(id, .development).reset(to: prod)
    }
}

extension Optional where Wrapped == Bool {
    var isTrue: Bool { self ?? false }
}
