import Foundation
import StratusPostgres
import StratusModel
import Synchronization

/// The Telemetry page's time series: per container environment and minute, requests and errors by operation kind
/// with a latency histogram, error answers by CloudKit error code (injected faults apart), and samples of records
/// and storage. Its own SQLite file (`telemetry.sqlite`); requests add up in memory and are written every few
/// seconds by a thread of its own. Bounded: minutes older than `retention` go, and past `maximumRows` minute
/// rows the oldest minutes go first.
public final class Telemetry: Sendable {
    /// A week shown whole, plus a day.
    public static let retention: Int64 = 8 * 1_440
    public static let maximumRows = 2_000_000
    static let flushInterval: Int64 = 5

    struct Key: Hashable {
        var container, environment: String
        var minute: Int64
        var operation: TelemetryOperation
    }

    struct Counts {
        var requests: Int64 = 0
        var errors: Int64 = 0
        var latency = LatencyHistogram()
        /// (code, injected) → count
        var codes: [ErrorKey: Int64] = [:]
    }

    struct ErrorKey: Hashable {
        var code: String
        var injected: Bool
    }

    struct Sample {
        var container, environment: String
        var minute, records, bytes: Int64
    }

    let database: any SQLDatabase
    private let pending = Mutex<(counts: [Key: Counts], samples: [Sample])>(([:], []))
    /// Writes what is counted every `flushInterval`.
    private let flusher = BackgroundWork("telemetry flusher")
    private let lastPrune = Mutex<Int64>(0)

    static let buckets = LatencyHistogram.bounds.indices.map { "l\($0)" }

    static var migrations: SQLMigrations {
        var m = SQLMigrations()
        let columns = Self.buckets.map { "\($0) INTEGER NOT NULL DEFAULT 0" }.joined(separator: ", ")
        m.add("v1", ddl: """
                    CREATE TABLE requests(container TEXT NOT NULL, environment TEXT NOT NULL, minute INTEGER NOT NULL, operation TEXT NOT NULL,
                        count INTEGER NOT NULL, errors INTEGER NOT NULL, \(columns), PRIMARY KEY(container, environment, minute, operation)) WITHOUT ROWID;
                    CREATE INDEX requests_by_minute ON requests(minute);
                    CREATE TABLE errors(container TEXT NOT NULL, environment TEXT NOT NULL, minute INTEGER NOT NULL, code TEXT NOT NULL,
                        injected INTEGER NOT NULL, count INTEGER NOT NULL, PRIMARY KEY(container, environment, minute, code, injected)) WITHOUT ROWID;
                    CREATE INDEX errors_by_minute ON errors(minute);
                    CREATE TABLE sizes(container TEXT NOT NULL, environment TEXT NOT NULL, minute INTEGER NOT NULL, records INTEGER NOT NULL,
                        bytes INTEGER NOT NULL, PRIMARY KEY(container, environment, minute)) WITHOUT ROWID;
                    CREATE INDEX sizes_by_minute ON sizes(minute);
                    """)
        return m
    }

    /// Telemetry in its own SQLite file.
    public convenience init(file: URL, flushing: Bool = true) throws(StratusError) {
        self.init(database: try guarded { try SQLiteDatabase.logFile(file, migrations: Self.migrations) }, flushing: flushing)
    }

    /// Telemetry in a PostgreSQL database's schema `stratus_telemetry`, which every node adds to.
    convenience init(postgres pool: PostgresPool, flushing: Bool = true) throws(StratusError) {
        let db = PostgresDatabase(pool: pool, schema: "stratus_telemetry")
        try guarded { try Self.migrations.migrate(db) }
        self.init(database: db, flushing: flushing)
    }

    private init(database: any SQLDatabase, flushing: Bool) {
        self.database = database
        if flushing {
            let t = self
            flusher.every(.seconds(Self.flushInterval)) { t.flush() }
        }
    }

    /// Counts a CloudKit API request (memory only; written within seconds).
    public func record(_ e: RequestLogEntry) {
        let key = Key(container: e.container, environment: e.environment, minute: e.at / 60_000, operation: TelemetryOperation(path: e.operation))
        pending.withLock { p in
            var c = p.counts[key] ?? Counts()
            c.requests += 1
            c.latency.add(microseconds: Int64(e.durationMicroseconds))
            if e.status >= 400 || e.injected {
                c.errors += 1
                c.codes[ErrorKey(code: e.errorCode ?? "HTTP_\(e.status)", injected: e.injected), default: 0] += 1
            }
            p.counts[key] = c
        }
    }

    /// Records how many records and bytes an environment holds now.
    public func sample(container: String, environment: String, records: Int64, bytes: Int64, at: Int64 = WallClock.nowMillis()) {
        pending.withLock { $0.samples.append(Sample(container: container, environment: environment, minute: at / 60_000, records: records, bytes: bytes)) }
    }

    /// Writes what has added up (the flusher does it every few seconds; tests and shutdown call it).
    public func flush() {
        let (counts, samples) = pending.withLock { p in
            defer { p.counts.removeAll(); p.samples.removeAll() }
            return (p.counts, p.samples)
        }
        let now = WallClock.nowMillis() / 60_000
        let prune = lastPrune.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        guard !counts.isEmpty || !samples.isEmpty || prune else { return }
        try? database.write { db in
            let names = Self.buckets.joined(separator: ", ")
            let insert = """
                INSERT INTO requests(container, environment, minute, operation, count, errors, \(names))
                VALUES (?,?,?,?,?,?,\(Self.buckets.map { _ in "?" }.joined(separator: ",")))
                ON CONFLICT(container, environment, minute, operation) DO UPDATE SET count = requests.count + excluded.count, errors = requests.errors + excluded.errors,
                    \(Self.buckets.map { "\($0) = requests.\($0) + excluded.\($0)" }.joined(separator: ", "))
                """
            let insertError = """
                INSERT INTO errors(container, environment, minute, code, injected, count) VALUES (?,?,?,?,?,?)
                ON CONFLICT(container, environment, minute, code, injected) DO UPDATE SET count = errors.count + excluded.count
                """
            for (k, c) in counts {
                var args: [SQLValue] = [.text(k.container), .text(k.environment), .int64(k.minute), .text(k.operation.rawValue), .int64(Int64(c.requests)), .int64(Int64(c.errors))]
                args += c.latency.counts.map { .int64(Int64($0)) }
                try db.execute(insert, args)
                for (e, n) in c.codes {
                    try db.execute(insertError, k.container, k.environment, k.minute, e.code, e.injected, n)
                }
            }
            for s in samples {
                try db.execute("""
                    INSERT INTO sizes(container, environment, minute, records, bytes) VALUES (?,?,?,?,?)
                    ON CONFLICT(container, environment, minute) DO UPDATE SET records = excluded.records, bytes = excluded.bytes
                    """, s.container, s.environment, s.minute, s.records, s.bytes)
            }
            if prune { try Self.prune(db, now: now) }
        }
    }

    static func prune(_ db: any SQLSession, now: Int64) throws {
        for table in ["requests", "errors", "sizes"] {
            try db.execute("DELETE FROM \(table) WHERE minute < ?", now - retention)
        }
        // Past the row bound, whole minutes go, oldest first.
        let rows = try db.int64("SELECT COUNT(*) FROM requests") ?? 0
        if rows > maximumRows, let cut = try db.int64("SELECT minute FROM requests ORDER BY minute LIMIT 1 OFFSET ?", [rows - Int64(maximumRows)]) {
            for table in ["requests", "errors", "sizes"] { try db.execute("DELETE FROM \(table) WHERE minute < ?", cut) }
        }
    }

    /// Writes what is pending and closes the file (later entries are dropped).
    public func stop() {
        flusher.stopThread()
        flush()
        database.close()
    }


    /// The points of `range` up to the minute of `now`, oldest first.
    public func report(container: String, environment: String, range: TelemetryRange, now: Int64 = WallClock.nowMillis()) throws(StratusError) -> TelemetryReport {
        flush()
        let count = Int(range.minutes / range.step)
        let first = (now / 60_000 / range.step) * range.step - Int64(count - 1) * range.step
        var points = (0..<count).map { TelemetryReport.Point(minute: first + Int64($0) * range.step) }
        func index(_ minute: Int64) -> Int? {
            let i = Int((minute - first) / range.step)
            return minute >= first && i < count ? i : nil
        }
        try guarded {
            try database.read { db in
                let args: [SQLValue] = [.text(container), .text(environment), .int64(first)]
                try db.each("""
                    SELECT minute, operation, count, errors, \(Self.buckets.joined(separator: ", ")) FROM requests
                    WHERE container = ? AND environment = ? AND minute >= ?
                    """, args) { r in
                    guard let i = index(r.int64(0) ?? 0) else { return }
                    points[i].requests += r.int64(2) ?? 0
                    points[i].errors += r.int64(3) ?? 0
                    let op = TelemetryOperation(rawValue: r.string(1) ?? "") ?? .other
                    var h = points[i].latency[op] ?? LatencyHistogram()
                    h.add(LatencyHistogram(counts: Self.buckets.indices.map { r.int64(4 + $0) ?? 0 }))
                    points[i].latency[op] = h
                }
                try db.each("SELECT minute, code, injected, count FROM errors WHERE container = ? AND environment = ? AND minute >= ?", args) { r in
                    guard let i = index(r.int64(0) ?? 0) else { return }
                    let n = r.int64(3) ?? 0
                    points[i].errorsByCode[r.string(1) ?? "", default: 0] += n
                    if r.bool(2) ?? false { points[i].injected += n }
                }
                try db.each("SELECT minute, records, bytes FROM sizes WHERE container = ? AND environment = ? AND minute >= ? ORDER BY minute", args) { r in
                    guard let i = index(r.int64(0) ?? 0) else { return }
                    points[i].records = r.int64(1) ?? 0
                    points[i].bytes = r.int64(2) ?? 0
                }
            }
        }
        return TelemetryReport(range: range, points: points)
    }
}
