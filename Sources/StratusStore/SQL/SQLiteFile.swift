import Foundation
import GRDB
import GRDBSQLite
import StratusModel

/// A container environment's SQLite file: a WAL pool (see `GatedDatabase`). What only SQLite has — its
/// planner's statistics, checkpoints, its integrity check, online backup for snapshots — is here, behind the SQL
/// seam, so that the environment's stores never touch GRDB.
typealias SQLiteFile = SQLiteDatabase<DatabasePool>

extension SQLiteDatabase where Base == DatabasePool {
    /// Opens (and migrates) a container environment's SQLite file.
    static func environment(file: URL, durability: Durability) throws -> SQLiteFile {
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
        let pool = GatedDatabase(try DatabasePool(path: path, configuration: config),
                                 readers: config.maximumReaderCount,
                                 openReader: { try DatabaseQueue(path: path, configuration: readerConfig) })
        PrivateFiles.file(file)
        // GRDB sets the writer to synchronous = NORMAL when it turns WAL on, after `prepareDatabase`: set it again.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)") }
        try EnvironmentMigrations.migrate(pool.base)
        return SQLiteDatabase(pool)
    }

    /// A write transaction whose commit is not synced to the disk on its own (`synchronous = NORMAL` for it, then
    /// `durability` again): for work a crash only postpones, because what it consumes goes back with what it made
    /// (the notification fan-out takes its changes out of the outbox in the same transaction). The next synced
    /// commit, which WAL orders after it, makes it durable too. The writer is held for the work, not for an fsync.
    func unsyncedWrite<T>(restoring durability: Durability, _ body: (any SQLSession) throws -> T) throws -> T {
        guard durability == .full else { return try write(body) }
        return try gated.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(SQLiteSession(db: db))
                return .commit
            }
            return result!
        }
    }

    /// Gathers the planner's statistics (`analysis_limit` keeps it to tens of milliseconds whatever the size).
    func analyze() throws { try gated.write { db in try db.execute(sql: "PRAGMA analysis_limit = 400; ANALYZE") } }

    /// Copies the write-ahead log into the database file and empties it.
    func checkpoint() throws { try gated.writeWithoutTransaction { db in _ = try Row.fetchOne(db,
            sql: "PRAGMA wal_checkpoint(TRUNCATE)") } }

    /// SQLite's own consistency check: "ok" when intact.
    func integrityCheck() throws -> String {
        try gated.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n") }
    }

    /// Frees what every connection holds in its page cache.
    func releaseMemory() { gated.releaseMemory() }

    /// Copies the whole database into a new file at `file` with SQLite's online backup (readers and writers go on).
    func backup(to file: URL) throws {
        let destination = try DatabaseQueue(path: file.path)
        try gated.base.backup(to: destination)
        try destination.close()
    }

    /// Replaces the whole database with the one in `file`, in one step readers see whole.
    func restore(from file: URL) throws {
        let source = try DatabaseQueue(path: file.path)
        try source.backup(to: gated.base)
        try source.close()
    }
}

extension SQLiteSession {
    /// The steps SQLite's virtual machine took for the cached statement of `sql` (the console's cost column).
    func virtualMachineSteps(_ sql: String) -> Int {
        guard let statement = try? db.cachedStatement(sql: sql) else { return 0 }
        return Int(sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_VM_STEP, 1))
    }
}
