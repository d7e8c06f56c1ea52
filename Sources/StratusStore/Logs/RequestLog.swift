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
    /// Entries queued, each with its place in the order they came (the parts are put back in that order).
    private let pending = ThreadShards<[(Int, RequestLogEntry)]> { [] }
    private let arrivals = Atomic<Int>(0)
    /// Writes what is queued every second.
    private let flusher = BackgroundWork("request log flusher")

    /// The log in its own SQLite file.
    public convenience init(file: URL) throws(StratusError) {
        self.init(database: try guarded { try SQLiteDatabase.logFile(file, migrations: RequestRows.migrations) })
    }

    /// The log in a PostgreSQL database's schema `stratus_requests`.
    convenience init(postgres pool: PostgresPool) throws(StratusError) {
        let db = PostgresDatabase(pool: pool, schema: "stratus_requests")
        try guarded { try RequestRows.migrations.migrate(db) }
        self.init(database: db)
    }

    private init(database: any SQLDatabase) {
        self.database = database
        let log = self
        flusher.every(.seconds(1)) { log.flush() }
    }

    /// Queues an entry (memory only; written within a second).
    public func append(_ e: RequestLogEntry) {
        let place = arrivals.wrappingAdd(1, ordering: .relaxed).oldValue
        let cap = Self.maximumPending / pending.count
        pending.withLock { p in
            if p.count >= cap { p.removeFirst(p.count / 10) }
            p.append((place, e))
        }
    }

    /// Writes what is queued now (the flusher does it every second; tests and shutdown call it).
    public func flush() {
        var queued: [(Int, RequestLogEntry)] = []
        pending.forEach { p in
            queued += p
            p.removeAll(keepingCapacity: true)
        }
        let batch = queued.sorted { $0.0 < $1.0 }.map(\.1)
        guard !batch.isEmpty else { return }
        try? database.write { s in
            var last: Int64 = 0
            // Many entries per statement: on PostgreSQL a statement per entry would be a round trip per request
            // served, its server's work competing with the requests for the same processors.
            var start = 0
            while start < batch.count {
                let chunk = batch[start..<start + Self.chunkSize(batch.count - start)]
                start += chunk.count
                last = try RequestRows.append(chunk, s)
            }
            // Each flush looks at the oldest `expiryWindow` (more than a second's worth of requests at any rate this
            // server serves).
            try RequestRows.trim(through: last - Int64(Self.maximumEntries), window: Self.expiryWindow,
                                 olderThan: WallClock.nowMillis() - Self.retention, s)
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
    public func entries(container: String, environment: String, operation: String? = nil, status: Int? = nil,
                        user: String? = nil,
                        uuid: String? = nil, before: Int64? = nil, limit: Int = 200) throws(StratusError) -> [RequestLogEntry] {
        flush()
        return try guarded {
            try database.read { s in
                try RequestRows.find(container: container, environment: environment, operation: operation,
                                     status: status, user: user,
                                     uuid: uuid?.lowercased(), before: before, limit: max(1, min(limit, 1000)), s)
            }
        }
    }
}
