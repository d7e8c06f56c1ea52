import Foundation
import GRDB
import StratusModel
import StratusPostgres
import Synchronization

/// One container environment: its public database, every user's private and shared databases, its schema and its
/// change log — in one SQLite file, or in one schema of a PostgreSQL database — plus its asset directory.
///
/// Every write is one transaction that keeps every invariant (record rows, index tables, change log, asset counts)
/// in step: on SQLite through the file's one writer, on PostgreSQL under the environment's sequence lock. Reads
/// run concurrently (SQLite's reader connections, PostgreSQL's pool), through the `database` seam.
public final class EnvironmentStore: Sendable {
    public let container: ContainerID
    public let environment: ContainerEnvironment
    /// The SQLite file's pool; nil on PostgreSQL (see `database`).
    let pool: GatedDatabase<DatabasePool>?
    /// The environment's database on either backend, for the code written once for both (`read`, `write`).
    let database: any SQLDatabase
    let assets: AssetStore
    let signer: TokenSigner
    let cachedCatalog: Mutex<Catalog>
    /// Records written since the planner's statistics were last gathered, and the record count then.
    private let statistics = Mutex<(writes: Int, basis: Int)>((0, 0))
    /// Custom roles per user, as every authenticated API request needs them (see `roles(of:)`).
    let roleCache = ExpiringCache<String, RoleMembership>()
    /// The most bytes (records and assets) this environment may hold; nil for no limit.
    let quotaBytes: Int64?
    /// The most bytes one user's data may take here (see `UserUsage`); nil for no limit.
    let userQuotaBytes: Int64?
    let usageCache = Mutex<(ContinuousClock.Instant, StorageUsage)?>(nil)
    /// Subscriptions grouped for matching; nil until first needed after a change to them.
    let subscriptionIndex = Mutex<SubscriptionIndex?>(nil)
    /// How far each web courier token has been answered, ahead of what is saved (see `courierDelivered`).
    let courierProgress = Mutex<(answered: [String: Int64], dirty: Set<String>, savedAt: ContinuousClock.Instant)>(([:], [], .now))

    /// Tells the other servers on the same PostgreSQL database what this one changed (nil on SQLite).
    let peers: CacheInvalidation?
    /// The environment's PostgreSQL schema, which names it in messages to other servers (nil on SQLite).
    let postgresSchema: String?

    /// Spelled into every notification ID of this environment (see `NotificationBatch.nid`).
    let nidSalt: UInt64

    /// The bell key of a user's notifications here: listeners take `bell.rings(key)` before reading the log.
    public func bellKey(_ user: String) -> String { NotificationBell.key(container, environment, user: user) }

    /// Rung when a commit appends notifications: SSE streams, courier polls and the webhook deliverer wait on it.
    /// The server's one bell, shared by every environment.
    public let bell: NotificationBell
    /// Notifications and webhook deliveries created here since the process started.
    public let notificationCounter = NotificationCounter()
    /// Record types this process is bulk loading (see `deferIndexes`).
    let deferredTypes = Mutex<Set<Int64>>([])
    /// The record type lookups guess (see `LookupGuess`).
    let lookupGuess = LookupGuess()
    /// Retention, subscription caps and the notification log's budget.
    public let notificationPolicy: NotificationPolicy
    /// How long the notification log keeps a notification (milliseconds).
    public var notificationRetention: Int64 { notificationPolicy.retention }
    let lastExpiry = Mutex<Int64>(0)
    /// `aps` texts the log references, by reference (they never change under one).
    let apsCache = ExpiringCache<String, String>(lifetime: .seconds(600), capacity: 10_000)
    let webhookCache = Mutex<(ContinuousClock.Instant, [Webhook])?>(nil)
    let webhookPresence = Mutex<(at: ContinuousClock.Instant, any: Bool)?>(nil)
    /// Whether any device is registered for APNs, and when that was read (see `hasAPNsDevices`).
    let apnsDevicePresence = Mutex<(at: ContinuousClock.Instant, any: Bool)?>(nil)
    /// Query shapes and automatic indexes between the keeper's visits.
    let upkeep: QueryShapeUpkeep

    /// Where an environment's data lives.
    enum Backend {
        /// One SQLite file (WAL) with the given durability.
        case sqlite(file: URL, durability: Durability)
        /// One schema of a PostgreSQL database, through the store's shared pool.
        case postgres(pool: PostgresPool, schema: String)
    }

    init(container: ContainerID, environment: ContainerEnvironment, backend: Backend, assetsDirectory: URL,
         quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil, notifications: NotificationPolicy = NotificationPolicy(),
         bell: NotificationBell = NotificationBell(), autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy(), peers: CacheInvalidation? = nil) throws {
        self.userQuotaBytes = userQuotaBytes
        self.bell = bell
        self.peers = peers
        upkeep = QueryShapeUpkeep(policy: autoIndexPolicy)
        self.quotaBytes = quotaBytes
        self.notificationPolicy = notifications
        self.container = container
        self.environment = environment
        switch backend {
        case .sqlite(let file, let durability):
            postgresSchema = nil
            let gated = try Self.openSQLite(file: file, durability: durability)
            pool = gated
            database = SQLiteDatabase(gated)
        case .postgres(let pgPool, let schema):
            postgresSchema = schema
            let db = PostgresDatabase(pool: pgPool, schema: schema)
            try EnvironmentMigrations.postgres.migrate(db)
            pool = nil
            database = db
        }
        let (secret, catalog) = try database.write { s -> (Data, Catalog) in
            if let secret = try s.one("SELECT value FROM secrets WHERE name = 'environment'", [], { $0.data(0) }) { return (secret, try SchemaStorage.load(s)) }
            var bytes = [UInt8](repeating: 0, count: 32)
            var rng = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = rng.next() }
            // Another server opening the environment at the same moment may win: its secret is the one kept.
            try s.execute("INSERT INTO secrets(name, value) VALUES ('environment', ?) ON CONFLICT(name) DO NOTHING", Data(bytes))
            let kept = try s.one("SELECT value FROM secrets WHERE name = 'environment'", [], { $0.data(0) }) ?? Data(bytes)
            return (kept, try SchemaStorage.load(s))
        }
        signer = TokenSigner(secret: secret)
        nidSalt = signer.derived("notification IDs")
        cachedCatalog = Mutex(catalog)
        assets = AssetStore(root: assetsDirectory)
        if let pool {
            let (hasStatistics, count) = try pool.read { db in
                (try db.tableExists("sqlite_stat1"), try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM record_counts") ?? 0)
            }
            statistics.withLock { $0 = (hasStatistics ? 0 : count, count) }
            noteWrites(0)
        }
        // A bulk import that died left a type without its indexes: build them before anything is served.
        try buildDeferredIndexes()
        // Stores made before users' usage was kept: counted once, from what they hold.
        try database.write { s in try UserUsage.backfillIfNeeded(s, catalog: try SchemaStorage.load(s)) }
    }

    /// An environment in one SQLite file.
    convenience init(container: ContainerID, environment: ContainerEnvironment, file: URL, assetsDirectory: URL, durability: Durability = .full,
                     quotaBytes: Int64? = nil, notifications: NotificationPolicy = NotificationPolicy(),
                     bell: NotificationBell = NotificationBell(), autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy()) throws {
        try self.init(container: container, environment: environment, backend: .sqlite(file: file, durability: durability), assetsDirectory: assetsDirectory,
                      quotaBytes: quotaBytes, notifications: notifications, bell: bell, autoIndexPolicy: autoIndexPolicy)
    }

    /// Opens (and migrates) an environment's SQLite file.
    private static func openSQLite(file: URL, durability: Durability) throws -> GatedDatabase<DatabasePool> {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            // Every connection may grow its page cache to the process's budget; SQLite's soft heap limit keeps them
            // all within it together (see `CacheBudget`).
            try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma); \(CacheBudget.cacheSizePragma); PRAGMA temp_store = MEMORY; PRAGMA wal_autocheckpoint = 10000; PRAGMA foreign_keys = ON")
            db.add(function: DatabaseFunction("stratus_distance", argumentCount: 4, pure: true) { v in
                guard let a = Double.fromDatabaseValue(v[0]), let b = Double.fromDatabaseValue(v[1]),
                      let c = Double.fromDatabaseValue(v[2]), let d = Double.fromDatabaseValue(v[3]) else { return nil }
                return Location.distance(a, b, c, d)
            })
        }
        try PrivateFiles.directory(file.deletingLastPathComponent())
        // Reads take read-only connections of their own first (see `GatedDatabase`): as many as GRDB's pool would
        // open, which it then opens only when all of ours are busy.
        let readerConfig = { var c = config; c.readonly = true; return c }()
        let path = file.path
        let pool = GatedDatabase(try DatabasePool(path: path, configuration: config), readers: config.maximumReaderCount,
                                 openReader: { try DatabaseQueue(path: path, configuration: readerConfig) })
        PrivateFiles.file(file)
        // GRDB sets the writer to synchronous = NORMAL when it turns WAL on, after `prepareDatabase`: set it again.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)") }
        try EnvironmentMigrations.migrate(pool.base)
        return pool
    }

    /// Closes the environment's database once the work inside it is done (see `GatedDatabase`).
    func close() {
        // The last minute's query shapes are written first, so `stratus schema check` after a server stopped sees them.
        recordQueryShapes()
        try? pool?.close()
    }

    // MARK: planner statistics

    /// Gathers SQLite's planner statistics when the data has grown enough since the last time (half again, or
    /// 1,000 records), so that a selective filter's index wins over a sort index that would scan the whole zone
    /// (`title = ? ORDER BY count`: without statistics SQLite walks the count index through every record).
    /// `analysis_limit` keeps it to tens of milliseconds whatever the size.
    func noteWrites(_ n: Int) {
        let due: Bool = statistics.withLock { s in
            s.writes += n
            guard s.writes >= max(1_000, s.basis / 2) else { return false }
            s.basis += s.writes
            s.writes = 0
            return true
        }
        guard due, let pool else { return }
        try? pool.write { db in try db.execute(sql: "PRAGMA analysis_limit = 400; ANALYZE") }
    }

    // MARK: catalog

    /// The catalog as of this transaction: reloaded only when another writer (or process) changed the schema.
    func catalog(_ s: any SQLSession) throws -> Catalog {
        try catalog(s, generation: try SchemaStorage.generation(s))
    }

    /// The catalog of `generation`, read in a statement the caller ran anyway (`SchemaStorage.generationColumn`).
    func catalog(_ s: any SQLSession, generation: Int64) throws -> Catalog {
        let cached = cachedCatalog.withLock { $0 }
        if cached.generation == generation { return cached }
        let fresh = try SchemaStorage.load(s)
        publish(fresh)
        return fresh
    }

    private func publish(_ c: Catalog) {
        cachedCatalog.withLock { if $0.generation < c.generation { $0 = c } }
    }

    /// The SQLite pool, for what only SQLite has (query shapes and automatic indexes): on PostgreSQL it answers
    /// so, as a readable error.
    func sqlitePool() throws(StratusError) -> GatedDatabase<DatabasePool> {
        guard let pool else {
            throw StratusError.badRequest("query shapes and automatic indexes are SQLite's; on PostgreSQL its planner and the declared indexes serve every query")
        }
        return pool
    }

    /// A read for what only SQLite has (its planner's shape log, automatic indexes): on PostgreSQL a readable
    /// refusal. Through the same sessions as every other read; no GRDB handle leaves the SQL layer.
    func sqliteRead<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T {
        _ = try sqlitePool()
        return try read(body)
    }

    /// A write for what only SQLite has (see `sqliteRead`).
    func sqliteWrite<T>(_ body: (any SQLSession, inout Catalog) throws -> T) throws(StratusError) -> T {
        _ = try sqlitePool()
        return try write(body)
    }

    /// A read transaction with the catalog as of it, on either backend.
    func read<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T {
        try guarded { try database.read { s in try body(s, try catalog(s)) } }
    }

    /// A read whose first statement selects the schema's generation among what it reads anyway
    /// (`SchemaStorage.generationColumn`) and then asks `catalog(generation)` for the catalog: on PostgreSQL the
    /// statement of its own that `read` runs for it is a round trip, a third of a one-record lookup's.
    func readCheckingCatalog<T>(_ body: (any SQLSession, (Int64) throws -> Catalog) throws -> T) throws(StratusError) -> T {
        try guarded { try database.read { s in try body(s) { generation in try self.catalog(s, generation: generation) } } }
    }

    /// A write transaction with the catalog, on either backend; a changed catalog is published once it commits.
    ///
    /// An environment's writes are one at a time on both backends: SQLite has one writer, and on PostgreSQL each
    /// write first locks the change counter's row. The change log needs it: sequence numbers must become visible
    /// in the order they were handed out, or a sync token could pass over a change committed later with a lower
    /// number. (Reads never wait for it.)
    func write<T>(_ body: (any SQLSession, inout Catalog) throws -> T) throws(StratusError) -> T {
        let (result, catalog) = try guarded {
            try database.write { s -> (T, Catalog) in
                if s.dialect == .postgres { try s.execute("SELECT value FROM meta WHERE key = 'next_seq' FOR UPDATE", []) }
                var c = try self.catalog(s)
                let r = try body(s, &c)
                return (r, c)
            }
        }
        publish(catalog)
        return result
    }

    /// Frees what every connection of this environment holds in its page cache (benchmarks give the next phase's
    /// side the whole cache budget this way).
    public func releaseMemory() { pool?.releaseMemory() }

    /// Copies the write-ahead log into the database file and empties it (what SQLite does by itself every 1,000
    /// pages; a benchmark does it before a figure so that one phase does not pay for the last one's writes).
    public func checkpoint() throws(StratusError) {
        guard let pool else { return }
        try guarded { try pool.writeWithoutTransaction { db in _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }
    }

    /// SQLite's own consistency check of this environment's file: "ok" when intact.
    public func integrityCheck() throws(StratusError) -> String {
        guard let pool else { return "not checked here: PostgreSQL checks its own pages (see amcheck)" }
        return try guarded { try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") } }
    }
}
