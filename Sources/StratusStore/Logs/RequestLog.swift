import Foundation
import StratusPostgres
import StratusModel
import Synchronization

/// The CloudKit API's request log (the console's Logs page): its own SQLite file beside the control database
/// (`requests.sqlite`), so that logging never takes a container environment's writer; on PostgreSQL, the schema
/// `stratus_requests`, which every node appends to. Requests are appended to
/// memory and written in one transaction a second by a thread of its own; entries older than `retention`, and the
/// oldest beyond `maximumEntries`, are deleted as it goes.
public final class RequestLog: Sendable {
    public static let retention: Int64 = 7 * 86_400_000
    public static let maximumEntries = 1_000_000
    /// The oldest entries each flush checks for expiry.
    static let expiryWindow: Int64 = 50_000
    /// Entries held in memory at most while the disk is slow (the oldest go first).
    static let maximumPending = 100_000
    /// Entries per INSERT when the log is written: 512, or the largest power of two that fits what is left, so
    /// that a connection prepares ten statements for the log rather than one per count of entries.
    static func chunkSize(_ left: Int) -> Int {
        left >= 512 ? 512 : 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
    }

    let database: any SQLDatabase
    private let pending = Mutex<[RequestLogEntry]>([])
    /// Writes what is queued every second.
    private let flusher = BackgroundWork("request log flusher")

    static var migrations: SQLMigrations {
        var m = SQLMigrations()
        m.add("v1", ddl: """
            CREATE TABLE requests(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, container TEXT NOT NULL, environment TEXT NOT NULL,
                operation TEXT NOT NULL, database TEXT NOT NULL, "user" TEXT, status INTEGER NOT NULL, error_code TEXT,
                duration_us INTEGER NOT NULL, uuid TEXT);
            CREATE INDEX requests_by_environment ON requests(container, environment, id);
            CREATE INDEX requests_by_uuid ON requests(uuid) WHERE uuid IS NOT NULL;
            """)
        m.add("v2-injected", ddl: "ALTER TABLE requests ADD COLUMN injected INTEGER NOT NULL DEFAULT 0")
        return m
    }

    /// The log in its own SQLite file.
    public convenience init(file: URL) throws(StratusError) {
        self.init(database: try guarded { try SQLiteDatabase.logFile(file, migrations: Self.migrations) })
    }

    /// The log in a PostgreSQL database's schema `stratus_requests`.
    convenience init(postgres pool: PostgresPool) throws(StratusError) {
        let db = PostgresDatabase(pool: pool, schema: "stratus_requests")
        try guarded { try Self.migrations.migrate(db) }
        self.init(database: db)
    }

    private init(database: any SQLDatabase) {
        self.database = database
        let log = self
        flusher.every(.seconds(1)) { log.flush() }
    }

    /// Queues an entry (memory only; written within a second).
    public func append(_ e: RequestLogEntry) {
        pending.withLock { p in
            if p.count >= Self.maximumPending { p.removeFirst(p.count / 10) }
            p.append(e)
        }
    }

    /// Writes what is queued now (the flusher does it every second; tests and shutdown call it).
    public func flush() {
        let batch = pending.withLock { p in defer { p.removeAll(keepingCapacity: true) }; return p }
        guard !batch.isEmpty else { return }
        try? database.write { s in
            var last: Int64 = 0
            // Many entries per statement: on PostgreSQL a statement per entry was a round trip per request served,
            // and its server's work competed with the requests for the same processors.
            var start = 0
            while start < batch.count {
                let chunk = batch[start..<start + Self.chunkSize(batch.count - start)]
                start += chunk.count
                var arguments: [SQLValue] = []
                arguments.reserveCapacity(chunk.count * 11)
                for e in chunk {
                    arguments += ([e.at, e.container, e.environment, e.operation, e.database, e.user, e.status, e.errorCode, e.durationMicroseconds, e.uuid, e.injected] as [SQLBindable]).map { $0.sqlValue }
                }
                // The id of the chunk's last row (SQLite's last rowid; PostgreSQL's last RETURNING row).
                last = try s.insert("""
                    INSERT INTO requests(at, container, environment, operation, database, "user", status, error_code, duration_us, uuid, injected) VALUES
                    """ + Array(repeating: "(?,?,?,?,?,?,?,?,?,?,?)", count: chunk.count).joined(separator: ","), arguments)
            }
            // Both deletes go by the primary key: `at` has no index, and one `id <= ? OR at < ?` read the whole log
            // every second (72 ms at 440,000 entries on PostgreSQL, the processors' time the requests needed).
            try s.execute("DELETE FROM requests WHERE id <= ?", last - Int64(Self.maximumEntries))
            // Entries are appended in the order served, so the expired ones are the oldest: each flush looks at the
            // oldest `expiryWindow` (more than a second's worth of requests at any rate this server serves).
            if let oldest = try s.int64("SELECT min(id) FROM requests") {
                try s.execute("DELETE FROM requests WHERE id >= ? AND id < ? AND at < ?", oldest, oldest + Self.expiryWindow, WallClock.nowMillis() - Self.retention)
            }
        }
    }

    /// Writes what is pending and closes the file (later entries are dropped).
    public func stop() {
        flusher.stopThread()
        flush()
        database.close()
    }


    /// Entries of a container environment, newest first: at most `limit`, older than `before` (an id) when given,
    /// matching each filter given (operation, status, user, uuid).
    public func entries(container: String, environment: String, operation: String? = nil, status: Int? = nil, user: String? = nil,
                        uuid: String? = nil, before: Int64? = nil, limit: Int = 200) throws(StratusError) -> [RequestLogEntry] {
        flush()
        return try guarded {
            try database.read { s in
                // Each filter is a term only when given, so that no parameter's type is left for the engine to guess.
                var sql = "SELECT id, at, container, environment, operation, database, \"user\", status, error_code, duration_us, uuid, injected FROM requests WHERE container = ? AND environment = ?"
                var args: [SQLValue] = [.text(container), .text(environment)]
                if let operation { sql += " AND operation = ?"; args.append(.text(operation)) }
                if let status { sql += " AND status = ?"; args.append(.int64(Int64(status))) }
                if let user { sql += " AND \"user\" = ?"; args.append(.text(user)) }
                if let uuid { sql += " AND uuid = ?"; args.append(.text(uuid.lowercased())) }
                if let before { sql += " AND id < ?"; args.append(.int64(before)) }
                args.append(.int64(Int64(max(1, min(limit, 1000)))))
                return try s.all(sql + " ORDER BY id DESC LIMIT ?", args) { r in
                    RequestLogEntry(id: r.int64(0) ?? 0, at: r.int64(1) ?? 0, container: r.string(2) ?? "", environment: r.string(3) ?? "", operation: r.string(4) ?? "",
                                    database: r.string(5) ?? "", user: r.string(6), status: Int(r.int64(7) ?? 0), errorCode: r.string(8),
                                    durationMicroseconds: Int(r.int64(9) ?? 0), uuid: r.string(10), injected: r.bool(11) ?? false)
                }
            }
        }
    }
}
