import StratusModel

/// The telemetry database's tables, one row per container environment and minute: `requests` (by operation kind,
/// with a latency histogram in columns `l0…`), `errors` (by CloudKit error code, injected faults apart) and
/// `sizes` (records and bytes sampled). Every statement on them is here, and their migration.
enum TelemetryRows {
    enum Column: String, TableColumn {
        case container, environment, minute, operation, count, errors, code, injected, records, bytes
    }

    /// The latency histogram's columns, one per bucket of `LatencyHistogram`.
    static let buckets = LatencyHistogram.bounds.indices.map { "l\($0)" }
    static let tables = ["requests", "errors", "sizes"]

    static var migrations: SQLMigrations {
        var m = SQLMigrations()
        let columns = buckets.map { "\($0) INTEGER NOT NULL DEFAULT 0" }.joined(separator: ", ")
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

    private static let addRequests = """
        INSERT INTO requests(container, environment, minute, operation, count, errors, \(buckets.joined(separator: ", ")))
        VALUES (?,?,?,?,?,?,\(buckets.map { _ in "?" }.joined(separator: ",")))
        ON CONFLICT(container, environment, minute, operation) DO UPDATE SET count = requests.count + excluded.count, errors = requests.errors + excluded.errors,
            \(buckets.map { "\($0) = requests.\($0) + excluded.\($0)" }.joined(separator: ", "))
        """

    /// Adds a minute's requests of one operation kind: how many, how many failed, and their latency histogram.
    static func add(container: String, environment: String, minute: Int64, operation: String, requests: Int64,
                    errors: Int64, latency: [Int64],
                    _ s: any SQLSession) throws {
        var args: [SQLValue] = [.text(container), .text(environment), .int64(minute), .text(operation),
                                .int64(requests), .int64(errors)]
        args += latency.map { .int64($0) }
        try s.execute(addRequests, args)
    }

    /// Adds a minute's error answers of one code.
    static func addErrors(container: String, environment: String, minute: Int64, code: String, injected: Bool,
                          count: Int64, _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO errors(container, environment, minute, code, injected, count) VALUES (?,?,?,?,?,?)
            ON CONFLICT(container, environment, minute, code, injected) DO UPDATE SET count = errors.count + excluded.count
            """, container, environment, minute, code, injected, count)
    }

    /// Keeps a minute's sample of an environment's records and bytes (the latest of the minute wins).
    static func setSize(container: String, environment: String, minute: Int64, records: Int64, bytes: Int64,
                        _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO sizes(container, environment, minute, records, bytes) VALUES (?,?,?,?,?)
            ON CONFLICT(container, environment, minute) DO UPDATE SET records = excluded.records, bytes = excluded.bytes
            """, container, environment, minute, records, bytes)
    }

    /// Deletes minutes before `cutoff`, then, past `maximumRows` request rows, the oldest whole minutes.
    static func prune(before cutoff: Int64, maximumRows: Int, _ s: any SQLSession) throws {
        for table in tables { try s.execute("DELETE FROM \(table) WHERE minute < ?", cutoff) }
        let rows = try s.int64("SELECT COUNT(*) FROM requests") ?? 0
        if rows > maximumRows, let cut = try s.int64("SELECT minute FROM requests ORDER BY minute LIMIT 1 OFFSET ?",
                                                     [rows - Int64(maximumRows)]) {
            for table in tables { try s.execute("DELETE FROM \(table) WHERE minute < ?", cut) }
        }
    }

    private static let requestRow = Selection<Column>([.minute, .operation, .count, .errors])
    private static let errorRow = Selection<Column>([.minute, .code, .injected, .count])
    private static let sizeRow = Selection<Column>([.minute, .records, .bytes])

    /// An environment's request rows from minute `first` on: minute, operation kind, count, errors, histogram.
    static func eachRequests(container: String, environment: String, from first: Int64, _ s: any SQLSession,
                             _ body: (_ minute: Int64, _ operation: String, _ count: Int64, _ errors: Int64,
                                      _ latency: [Int64]) throws -> Void) throws {
        try s.each("""
            SELECT \(requestRow.sql), \(buckets.joined(separator: ", ")) FROM requests WHERE container = ? AND environment = ? AND minute >= ?
            """, [.text(container), .text(environment), .int64(first)]) { r in
            let row = NamedRow(r, requestRow)
            try body(row.int64(.minute) ?? 0, row.string(.operation) ?? "", row.int64(.count) ?? 0,
                     row.int64(.errors) ?? 0,
                     buckets.indices.map { r.int64(row.end + $0) ?? 0 })
        }
    }

    /// An environment's error rows from minute `first` on.
    static func eachErrors(container: String, environment: String, from first: Int64, _ s: any SQLSession,
                           _ body: (_ minute: Int64, _ code: String, _ injected: Bool,
                                    _ count: Int64) throws -> Void) throws {
        try s.each("SELECT \(errorRow.sql) FROM errors WHERE container = ? AND environment = ? AND minute >= ?",
                   [.text(container), .text(environment), .int64(first)]) { r in
            let row = NamedRow(r, errorRow)
            try body(row.int64(.minute) ?? 0, row.string(.code) ?? "", row.bool(.injected) ?? false,
                     row.int64(.count) ?? 0)
        }
    }

    /// An environment's size samples from minute `first` on, oldest first.
    static func eachSize(container: String, environment: String, from first: Int64, _ s: any SQLSession,
                         _ body: (_ minute: Int64, _ records: Int64, _ bytes: Int64) throws -> Void) throws {
        try s.each("SELECT \(sizeRow.sql) FROM sizes WHERE container = ? AND environment = ? AND minute >= ? ORDER BY minute",
                   [.text(container), .text(environment), .int64(first)]) { r in
            let row = NamedRow(r, sizeRow)
            try body(row.int64(.minute) ?? 0, row.int64(.records) ?? 0, row.int64(.bytes) ?? 0)
        }
    }
}
