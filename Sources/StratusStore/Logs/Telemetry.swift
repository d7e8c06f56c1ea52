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

        /// Adds what another part of the pending counts holds for the same key.
        mutating func add(_ other: Counts) {
            requests += other.requests
            errors += other.errors
            latency.add(other.latency)
            for (k, n) in other.codes { codes[k, default: 0] += n }
        }

        mutating func add(_ e: RequestLogEntry) {
            requests += 1
            latency.add(microseconds: Int64(e.durationMicroseconds))
            if e.status >= 400 || e.injected {
                errors += 1
                codes[ErrorKey(code: e.errorCode ?? "HTTP_\(e.status)", injected: e.injected), default: 0] += 1
            }
        }
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
    /// Requests counted since the last flush, in parts by thread (see `ThreadShards`).
    private let pending = ThreadShards<[Key: Counts]> { [:] }
    private let samples = Mutex<[Sample]>([])
    /// Writes what is counted every `flushInterval`.
    private let flusher = BackgroundWork("telemetry flusher")
    private let lastPrune = Mutex<Int64>(0)

    /// Telemetry in its own SQLite file.
    public convenience init(file: URL, flushing: Bool = true) throws(StratusError) {
        self.init(database: try guarded { try SQLiteDatabase.logFile(file, migrations: TelemetryRows.migrations) },
                  flushing: flushing)
    }

    /// Telemetry in a PostgreSQL database's schema `stratus_telemetry`, which every node adds to.
    convenience init(postgres pool: PostgresPool, flushing: Bool = true) throws(StratusError) {
        let db = PostgresDatabase(pool: pool, schema: "stratus_telemetry")
        try guarded { try TelemetryRows.migrations.migrate(db) }
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
        let key = Key(container: e.container, environment: e.environment, minute: e.at / 60_000,
                      operation: TelemetryOperation(path: e.operation))
        // Counted in place: a copy taken out and written back copied its histogram on every request.
        pending.withLock { p in p[key, default: Counts()].add(e) }
    }

    /// Records how many records and bytes an environment holds now.
    public func sample(container: String, environment: String, records: Int64, bytes: Int64,
                       at: Int64 = WallClock.nowMillis()) {
        samples.withLock { $0.append(Sample(container: container, environment: environment, minute: at / 60_000,
                                                    records: records, bytes: bytes)) }
    }

    /// Writes what has added up (the flusher does it every few seconds; tests and shutdown call it).
    public func flush() {
        var counts: [Key: Counts] = [:]
        pending.forEach { p in
            for (k, c) in p { counts[k, default: Counts()].add(c) }
            p.removeAll()
        }
        let samples = self.samples.withLock { s in defer { s.removeAll() }; return s }
        let now = WallClock.nowMillis() / 60_000
        let prune = lastPrune.withLock { last in
            guard now - last >= 60 else { return false }
            last = now
            return true
        }
        guard !counts.isEmpty || !samples.isEmpty || prune else { return }
        try? database.write { db in
            for (k, c) in counts {
                try TelemetryRows.add(container: k.container, environment: k.environment, minute: k.minute,
                                      operation: k.operation.rawValue,
                                      requests: c.requests, errors: c.errors, latency: c.latency.counts, db)
                for (e, n) in c.codes {
                    try TelemetryRows.addErrors(container: k.container, environment: k.environment, minute: k.minute,
                                                code: e.code, injected: e.injected,
                                                count: n, db)
                }
            }
            for s in samples {
                try TelemetryRows.setSize(container: s.container, environment: s.environment, minute: s.minute,
                                          records: s.records, bytes: s.bytes, db)
            }
            if prune { try Self.prune(db, now: now) }
        }
    }

    static func prune(_ db: any SQLSession, now: Int64) throws {
        try TelemetryRows.prune(before: now - retention, maximumRows: maximumRows, db)
    }

    /// Writes what is pending and closes the file (later entries are dropped).
    public func stop() {
        flusher.stopThread()
        flush()
        database.close()
    }


    /// The points of `range` up to the minute of `now`, oldest first.
    public func report(container: String, environment: String, range: TelemetryRange,
                       now: Int64 = WallClock.nowMillis()) throws(StratusError) -> TelemetryReport {
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
                try TelemetryRows.eachRequests(container: container, environment: environment, from: first,
                                               db) { minute, operation, count, errors, latency in
                    guard let i = index(minute) else { return }
                    points[i].requests += count
                    points[i].errors += errors
                    let op = TelemetryOperation(rawValue: operation) ?? .other
                    var h = points[i].latency[op] ?? LatencyHistogram()
                    h.add(LatencyHistogram(counts: latency))
                    points[i].latency[op] = h
                }
                try TelemetryRows.eachErrors(container: container, environment: environment, from: first,
                                             db) { minute, code, injected, n in
                    guard let i = index(minute) else { return }
                    points[i].errorsByCode[code, default: 0] += n
                    if injected { points[i].injected += n }
                }
                try TelemetryRows.eachSize(container: container, environment: environment, from: first,
                                           db) { minute, records, bytes in
                    guard let i = index(minute) else { return }
                    points[i].records = records
                    points[i].bytes = bytes
                }
            }
        }
        return TelemetryReport(range: range, points: points)
    }
}
