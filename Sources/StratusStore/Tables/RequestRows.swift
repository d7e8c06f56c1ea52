import StratusModel

/// `requests` (the request log's own database): one row per CloudKit API request served. Every statement on it is
/// here, and its migrations.
enum RequestRows {
    enum Column: String, TableColumn {
        case id, at, container, environment, operation, database, user, status, uuid, injected
        case errorCode = "error_code", duration = "duration_us"
    }

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

    private static let written = Selection<Column>([.at, .container, .environment, .operation, .database, .user,
                                                    .status, .errorCode, .duration, .uuid, .injected])
    private static let entry = Selection<Column>([.id] + written.columns)

    /// Appends entries in one statement; returns the id of the last.
    static func append(_ entries: ArraySlice<RequestLogEntry>, _ s: any SQLSession) throws -> Int64 {
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(entries.count * written.columns.count)
        for e in entries {
            arguments += ([e.at, e.container, e.environment, e.operation, e.database, e.user, e.status, e.errorCode,
                           e.durationMicroseconds, e.uuid, e.injected]
                          as [SQLBindable]).map { $0.sqlValue }
        }
        // The id of the last row (SQLite's last rowid; PostgreSQL's last RETURNING row).
        let tuple = "(" + Array(repeating: "?", count: written.columns.count).joined(separator: ",") + ")"
        return try s.insert("INSERT INTO requests(\(written.sql)) VALUES " + Array(repeating: tuple,
                count: entries.count).joined(separator: ","), arguments)
    }

    /// Deletes the entries up to `id`, and those among the `window` oldest that are older than `cutoff`. Both go by
    /// the primary key (`at` has no index): entries are appended in the order served, so the expired ones are the
    /// oldest.
    static func trim(through id: Int64, window: Int64, olderThan cutoff: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM requests WHERE id <= ?", id)
        if let oldest = try s.int64("SELECT min(id) FROM requests") {
            try s.execute("DELETE FROM requests WHERE id >= ? AND id < ? AND at < ?", oldest, oldest + window, cutoff)
        }
    }

    /// A container environment's entries, newest first, matching each filter given; at most `limit`.
    static func find(container: String, environment: String, operation: String?, status: Int?, user: String?,
                     uuid: String?, before: Int64?,
                     limit: Int, _ s: any SQLSession) throws -> [RequestLogEntry] {
        // Each filter is a term only when given, so that no parameter's type is left for the engine to guess.
        var sql = "SELECT \(entry.sql) FROM requests WHERE container = ? AND environment = ?"
        var args: [SQLValue] = [.text(container), .text(environment)]
        if let operation { sql += " AND operation = ?"; args.append(.text(operation)) }
        if let status { sql += " AND status = ?"; args.append(.int64(Int64(status))) }
        if let user { sql += " AND \"user\" = ?"; args.append(.text(user)) }
        if let uuid { sql += " AND uuid = ?"; args.append(.text(uuid)) }
        if let before { sql += " AND id < ?"; args.append(.int64(before)) }
        args.append(.int64(Int64(limit)))
        return try s.all(sql + " ORDER BY id DESC LIMIT ?", args) { r in
            let row = NamedRow(r, entry)
            return RequestLogEntry(id: row.int64(.id) ?? 0, at: row.int64(.at) ?? 0,
                                   container: row.string(.container) ?? "",
                                   environment: row.string(.environment) ?? "", operation: row.string(.operation) ?? "", database: row.string(.database) ?? "",
                                   user: row.string(.user), status: Int(row.int64(.status) ?? 0), errorCode: row.string(.errorCode),
                                   durationMicroseconds: Int(row.int64(.duration) ?? 0), uuid: row.string(.uuid), injected: row.bool(.injected) ?? false)
        }
    }
}
