import Foundation
import StratusModel
import StratusPostgres
import Synchronization

/// The database of one container environment — one SQLite file, or one schema of a PostgreSQL database — with
/// its schema's catalog, its secret and its asset directory: what every store of the environment (`StoredRecords`,
/// `ZoneStore`, …) reads and writes through.
///
/// Every write is one transaction that keeps every invariant (record rows, index tables, change log, asset counts)
/// in step: on SQLite through the file's one writer, on PostgreSQL under the environment's write lock (shared by
/// writes to one database, each of which locks that database's change counter; see `write(in:)`). Reads
/// run concurrently (SQLite's reader connections, PostgreSQL's pool), through the `database` seam.
final class EnvironmentDatabase: Sendable {
    let container: ContainerID
    let environment: ContainerEnvironment
    /// How a SQLite file's commits reach the disk (PostgreSQL's are its own).
    let durability: Durability
    /// Who writes next on SQLite's one writer (see `WriterTurns`); unused on PostgreSQL, whose writes run at once.
    let turns = WriterTurns()
    /// The SQLite file, for what only SQLite has (statistics, checkpoints, backups); nil on PostgreSQL (see
    /// `database`).
    let sqlite: SQLiteFile?
    /// The environment's database on either backend, for the code written once for both (`read`, `write`).
    let database: any SQLDatabase
    let files: AssetFiles
    let signer: TokenSigner
    let cachedCatalog: ReadMostly<Catalog>
    /// Records written since the planner's statistics were last gathered, and the record count then.
    private let statistics = Mutex<(writes: Int, basis: Int)>((0, 0))
    /// The most bytes (records and assets) this environment may hold; nil for no limit.
    let quotaBytes: Int64?
    /// The most bytes one user's data may take here (see `UserUsage`); nil for no limit.
    let userQuotaBytes: Int64?
    /// Tells the other servers on the same PostgreSQL database what this one changed (nil on SQLite).
    let peers: CacheInvalidation?
    /// The environment's PostgreSQL schema, which names it in messages to other servers (nil on SQLite).
    let postgresSchema: String?

    /// Spelled into every notification ID of this environment (see `NotificationBatch.nid`).
    let nidSalt: UInt64

    /// Rung when a commit appends notifications: SSE streams, courier polls and the webhook deliverer wait on it.
    /// The server's one bell, shared by every environment.
    let bell: NotificationBell
    /// Retention, subscription caps and the notification log's budget.
    let notificationPolicy: NotificationPolicy
    /// When the environment builds composite indexes for the query shapes it sees.
    let autoIndexPolicy: AutoIndexPolicy
    /// Turns the changes writes hand off into notifications, after their commits (the store's, shared by every
    /// environment; an environment opened on its own has one of its own, stopped when it closes).
    let fanOut: NotificationFanOut
    private let ownsFanOut: Bool

    /// Where an environment's data lives.
    enum Backend {
        /// One SQLite file (WAL) with the given durability.
        case sqlite(file: URL, durability: Durability)
        /// One schema of a PostgreSQL database, through the store's shared pool.
        case postgres(pool: PostgresPool, schema: String)
    }

    init(container: ContainerID, environment: ContainerEnvironment, backend: Backend, assetsDirectory: URL,
         quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil, notifications: NotificationPolicy = NotificationPolicy(),
         bell: NotificationBell = NotificationBell(), autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy(), peers: CacheInvalidation? = nil,
         fanOut: NotificationFanOut? = nil) throws {
        self.fanOut = fanOut ?? NotificationFanOut()
        ownsFanOut = fanOut == nil
        self.userQuotaBytes = userQuotaBytes
        self.bell = bell
        self.peers = peers
        self.autoIndexPolicy = autoIndexPolicy
        self.quotaBytes = quotaBytes
        self.notificationPolicy = notifications
        self.container = container
        self.environment = environment
        switch backend {
        case .sqlite(let file, let durability):
            self.durability = durability
            postgresSchema = nil
            let file = try SQLiteFile.environment(file: file, durability: durability)
            sqlite = file
            database = file
        case .postgres(let pgPool, let schema):
            durability = .full
            postgresSchema = schema
            let db = PostgresDatabase(pool: pgPool, schema: schema)
            try EnvironmentMigrations.postgres.migrate(db)
            sqlite = nil
            database = db
        }
        let (secret, catalog) = try database.write { s -> (Data, Catalog) in
            if let secret = try SecretRows.environment(s) { return (secret, try SchemaStorage.load(s)) }
            var bytes = [UInt8](repeating: 0, count: 32)
            var rng = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = rng.next() }
            // Another server opening the environment at the same moment may win: its secret is the one kept.
            let kept = try SecretRows.keepEnvironment(Data(bytes), s)
            return (kept, try SchemaStorage.load(s))
        }
        signer = TokenSigner(secret: secret)
        nidSalt = signer.derived("notification IDs")
        cachedCatalog = ReadMostly(catalog)
        files = AssetFiles(root: assetsDirectory)
        if sqlite != nil {
            let (hasStatistics, count) = try database.read { s in
                (try s.tableExists("sqlite_stat1"), Int(try RecordCounts.total(s)))
            }
            statistics.withLock { $0 = (hasStatistics ? 0 : count, count) }
            noteWrites(0)
        }
        // Stores made before users' usage was kept: counted once, from what they hold.
        try database.write { s in try UserUsage.backfillIfNeeded(s, catalog: try SchemaStorage.load(s)) }
    }

    /// Closes the environment's database once the work inside it is done (see `GatedDatabase`).
    func close() {
        if ownsFanOut { fanOut.stop() }
        sqlite?.close()
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
        guard due, let sqlite else { return }
        try? sqlite.analyze()
    }

    // MARK: catalog

    /// The catalog as of this transaction: reloaded only when another writer (or process) changed the schema.
    func catalog(_ s: any SQLSession) throws -> Catalog {
        try catalog(s, generation: try SchemaStorage.generation(s))
    }

    /// The catalog of `generation`, read in a statement the caller ran anyway (`SchemaStorage.generationColumn`).
    func catalog(_ s: any SQLSession, generation: Int64) throws -> Catalog {
        let cached = cachedCatalog.read { $0 }
        if cached.generation == generation { return cached }
        let fresh = try SchemaStorage.load(s)
        publish(fresh)
        return fresh
    }

    func publish(_ c: Catalog) {
        // Almost every write publishes the catalog it read: the shared lock tells it so without the exclusive one.
        guard cachedCatalog.read({ $0.generation < c.generation }) else { return }
        cachedCatalog.write { if $0.generation < c.generation { $0 = c } }
    }

    /// The SQLite file, for what only SQLite has (query shapes and automatic indexes, snapshots): on PostgreSQL it
    /// answers so, as a readable error.
    func sqliteFile() throws(StratusError) -> SQLiteFile {
        guard let sqlite else {
            throw StratusError.badRequest("query shapes and automatic indexes are SQLite's; on PostgreSQL its planner and the declared indexes serve every query")
        }
        return sqlite
    }

    /// A read for what only SQLite has (its planner's shape log, automatic indexes): on PostgreSQL a readable
    /// refusal. Through the same sessions as every other read; no GRDB handle leaves the SQL layer.
    func sqliteRead<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T {
        _ = try sqliteFile()
        return try read(body)
    }

    /// A write for what only SQLite has (see `sqliteRead`).
    func sqliteWrite<T>(_ body: (any SQLSession, inout Catalog) throws -> T) throws(StratusError) -> T {
        _ = try sqliteFile()
        return try write(body)
    }

    /// PostgreSQL statements outside any transaction, each committing by itself, on one connection (what
    /// `CREATE INDEX CONCURRENTLY` and a session's advisory lock need); on SQLite a readable refusal.
    func postgresAutocommit<T>(_ body: (any SQLSession) throws -> T) throws(StratusError) -> T {
        guard sqlite == nil else { throw StratusError.badRequest("statements outside a transaction are PostgreSQL's") }
        // A PostgreSQL read runs its statements as they come, without BEGIN: exactly autocommit.
        return try guarded { try database.read(body) }
    }

    /// A read transaction with the catalog as of it, on either backend.
    func read<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T {
        try guarded { try database.read { s in try body(s, try catalog(s)) } }
    }

    /// A read whose statements all see one moment (PostgreSQL's REPEATABLE READ; SQLite's reads always do), for
    /// the few reads that compare what separate statements return.
    func snapshotRead<T>(_ body: (any SQLSession) throws -> T) throws(StratusError) -> T {
        try guarded { try database.snapshotRead(nil, body) }
    }

    /// A read whose first statement selects the schema's generation among what it reads anyway
    /// (`SchemaStorage.generationColumn`) and then asks `catalog(generation)` for the catalog: on PostgreSQL the
    /// statement of its own that `read` runs for it is a round trip, a third of a one-record lookup's.
    func readCheckingCatalog<T>(_ body: (any SQLSession,
                                         (Int64) throws -> Catalog) throws -> T) throws(StratusError) -> T {
        try guarded { try database.read { s in try body(s) { generation in try self.catalog(s,
                generation: generation) } } }
    }

    /// One statement with no transaction around it (SQLite's autocommit gives it one snapshot; PostgreSQL's reads
    /// have none), with the catalog cached here when it is of the generation the statement read, else nil: a body
    /// that would need a statement more gives up, and is read again with `readCheckingCatalog`.
    func readStatementCheckingCatalog<T>(_ body: (any SQLSession, (Int64) -> Catalog?) throws -> T) throws(StratusError) -> T {
        try guarded { try database.readStatement { s in try body(s) { generation in
            let cached = cachedCatalog.read { $0 }
            return cached.generation == generation ? cached : nil
        } } }
    }

    /// A write transaction with the catalog, on either backend, that may change anything in the environment (its
    /// schema, every zone, the notification log's expiry); a changed catalog is published once it commits.
    ///
    /// SQLite has one writer. On PostgreSQL this write holds the environment's write lock exclusively: it waits for
    /// every database-scoped write (`write(in:)`) to end and keeps new ones out until it commits.
    func write<T>(_ body: (any SQLSession, inout Catalog) throws -> T) throws(StratusError) -> T {
        let (result, catalog) = try guarded {
            try inTurn(Self.serverPrincipal) {
                try database.write { s -> (T, Catalog) in
                    try WriteLock.take(exclusive: true, s)
                    var c = try self.catalog(s)
                    let r = try body(s, &c)
                    return (r, c)
                }
            }
        }
        publish(catalog)
        return result
    }

    /// Whose turn a write that is no user's takes (schema, settings, upkeep), and the fan-out's.
    static let serverPrincipal = "\u{0}server"
    static let fanOutPrincipal = "\u{0}fan-out"

    /// `body` in `principal`'s turn with SQLite's writer (at once on PostgreSQL).
    func inTurn<T>(_ principal: String, _ body: () throws -> T) rethrows -> T {
        sqlite == nil ? try body() : try turns.run(principal, body)
    }

    /// A write transaction of the notification fan-out (see `NotificationFanOut`): on PostgreSQL it holds the
    /// environment's write lock shared, as record writes do, so that it runs beside them; the recipients' rows it
    /// appends to are locked one by one, in name order, as a write's were.
    ///
    /// Its commit is not synced on its own (SQLite's `synchronous = NORMAL`, PostgreSQL's `synchronous_commit = off`):
    /// a crash that loses it loses the changes' removal from the outbox with it, and the next turn does them again.
    func fanOutWrite<T>(_ body: (any SQLSession, Catalog) throws -> T) throws(StratusError) -> T {
        try guarded {
            try withoutActuallyEscaping(body) { body in
                let turn = { (s: any SQLSession) throws -> T in
                    try WriteLock.take(exclusive: false, s)
                    try WriteLock.unsyncedCommit(s)
                    return try body(s, try self.catalog(s))
                }
                if let sqlite { return try turns.run(Self.fanOutPrincipal) { try sqlite.unsyncedWrite(restoring: durability, turn) } }
                return try database.write(turn)
            }
        }
    }

    /// A write transaction that changes one database's zones and records (and what they fire: notifications,
    /// webhooks, usage), drawing change sequence values from that database's counter, which it locks first.
    ///
    /// On PostgreSQL it holds the environment's write lock shared, so writes to different databases — users' own
    /// private zones — run at once, while writes to one database take turns on its counter's row: its changes
    /// commit in the order of their sequence values, which is what keeps a sync token from passing over a change
    /// committed later (docs/change-ordering.md). What would change the whole environment — a schema change a
    /// Development write makes on the way — throws `NeedsExclusiveWrite`, and the write runs again as `write`.
    func write<T>(in target: DatabaseID, _ body: (any SQLSession, inout Catalog,
                                                  inout SequenceAllocator) throws -> T) throws(StratusError) -> T {
        try write(in: target, for: target.ownerRecordName, first: { s in (try SchemaStorage.generation(s),
                ()) }) { s, catalog, seq, _ in try body(s, &catalog, &seq) }
    }

    /// `write(in:)` whose first statement after the locks (`first`) selects the schema's generation among what the
    /// write reads anyway (`SchemaStorage.generationColumn`), and hands the rest to `body`: a statement fewer per
    /// write, as `readCheckingCatalog` saves one per read.
    /// `principal`: whose turn the write takes on SQLite's writer (the user it is for; see `WriterTurns`).
    func write<First, T>(in target: DatabaseID, for principal: String,
                         first: (any SQLSession) throws -> (generation: Int64, First),
                         _ body: (any SQLSession, inout Catalog, inout SequenceAllocator,
                                  First) throws -> T) throws(StratusError) -> T {
        var whole = false
        while true {
            let outcome: (T, Catalog)? = try guarded {
                do {
                    return try inTurn(principal) { try database.write { s -> (T, Catalog) in
                        var seq = try SequenceAllocator(s, target, writeLock: WriteLock.call(exclusive: whole,
                                s.dialect))
                        seq.wholeEnvironment = whole || s.dialect.hasOneWriter
                        let (generation, read) = try first(s)
                        var c = try self.catalog(s, generation: generation)
                        let r = try body(s, &c, &seq, read)
                        try seq.save(s)
                        return (r, c)
                    } }
                } catch is NeedsExclusiveWrite where !whole {
                    return nil
                }
            }
            guard let (result, catalog) = outcome else { whole = true; continue }
            publish(catalog)
            return result
        }
    }

    /// Frees what every connection of this environment holds in its page cache.
    func releaseMemory() { sqlite?.releaseMemory() }

    /// Copies SQLite's write-ahead log into the database file and empties it (nothing to do on PostgreSQL).
    func checkpoint() throws(StratusError) {
        guard let sqlite else { return }
        try guarded { try sqlite.checkpoint() }
    }

    /// SQLite's own consistency check of this environment's file: "ok" when intact.
    func integrityCheck() throws(StratusError) -> String {
        guard let sqlite else { return "not checked here: PostgreSQL checks its own pages (see amcheck)" }
        return try guarded { try sqlite.integrityCheck() }
    }
}
