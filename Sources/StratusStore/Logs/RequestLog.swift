import Foundation
import GRDB
import StratusModel
import Synchronization

/// The CloudKit API's request log (the console's Logs page): its own SQLite file beside the control database
/// (`requests.sqlite`), so that logging never takes a container environment's writer. Requests are appended to
/// memory and written in one transaction a second by a thread of its own; entries older than `retention`, and the
/// oldest beyond `maximumEntries`, are deleted as it goes.
public final class RequestLog: Sendable {
    public static let retention: Int64 = 7 * 86_400_000
    public static let maximumEntries = 1_000_000
    /// Entries held in memory at most while the disk is slow (the oldest go first).
    static let maximumPending = 100_000

    let queue: DatabaseQueue
    private let pending = Mutex<[RequestLogEntry]>([])
    private let running = Mutex(true)

    public init(file: URL) throws(StratusError) {
        queue = try guarded {
            var config = Configuration()
            config.busyMode = .timeout(10)
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            let q = try DatabaseQueue(path: file.path, configuration: config)
            try q.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            var m = DatabaseMigrator()
            m.registerMigration("v1") { db in
                try db.execute(sql: """
                    CREATE TABLE requests(id INTEGER PRIMARY KEY, at INTEGER NOT NULL, container TEXT NOT NULL, environment TEXT NOT NULL,
                        operation TEXT NOT NULL, database TEXT NOT NULL, user TEXT, status INTEGER NOT NULL, error_code TEXT,
                        duration_us INTEGER NOT NULL, uuid TEXT);
                    CREATE INDEX requests_by_environment ON requests(container, environment, id);
                    CREATE INDEX requests_by_uuid ON requests(uuid) WHERE uuid IS NOT NULL;
                    """)
            }
            m.registerMigration("v2-injected") { db in
                try db.execute(sql: "ALTER TABLE requests ADD COLUMN injected INTEGER NOT NULL DEFAULT 0")
            }
            try m.migrate(q)
            return q
        }
        let log = self
        Thread { log.flushLoop() }.start()
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
        try? queue.write { db in
            let st = try db.cachedStatement(sql: """
                INSERT INTO requests(at, container, environment, operation, database, user, status, error_code, duration_us, uuid, injected) VALUES (?,?,?,?,?,?,?,?,?,?,?)
                """)
            for e in batch {
                try st.execute(arguments: [e.at, e.container, e.environment, e.operation, e.database, e.user, e.status, e.errorCode, e.durationMicroseconds, e.uuid, e.injected])
            }
            let last = db.lastInsertedRowID
            try db.execute(sql: "DELETE FROM requests WHERE id <= ? OR at < ?", arguments: [last - Int64(Self.maximumEntries), Clock.nowMillis() - Self.retention])
        }
    }

    /// Writes what is pending and closes the file (later entries are dropped).
    public func stop() {
        running.withLock { $0 = false }
        flush()
        try? queue.close()
    }

    private func flushLoop() {
        while running.withLock({ $0 }) {
            Thread.sleep(forTimeInterval: 1)
            flush()
        }
    }

    /// Entries of a container environment, newest first: at most `limit`, older than `before` (an id) when given,
    /// matching each filter given (operation, status, user, uuid).
    public func entries(container: String, environment: String, operation: String? = nil, status: Int? = nil, user: String? = nil,
                        uuid: String? = nil, before: Int64? = nil, limit: Int = 200) throws(StratusError) -> [RequestLogEntry] {
        flush()
        return try guarded {
            try queue.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT * FROM requests WHERE container = ? AND environment = ? AND (?3 IS NULL OR operation = ?3) AND (?4 IS NULL OR status = ?4)
                        AND (?5 IS NULL OR user = ?5) AND (?6 IS NULL OR uuid = ?6) AND (?7 IS NULL OR id < ?7)
                    ORDER BY id DESC LIMIT ?8
                    """, arguments: [container, environment, operation, status, user, uuid?.lowercased(), before, max(1, min(limit, 1000))]).map { r in
                    RequestLogEntry(id: r["id"], at: r["at"], container: r["container"], environment: r["environment"], operation: r["operation"],
                                    database: r["database"], user: r["user"], status: r["status"], errorCode: r["error_code"],
                                    durationMicroseconds: r["duration_us"], uuid: r["uuid"], injected: r["injected"])
                }
            }
        }
    }
}
