import Foundation

/// One connection inside a read or a write (a transaction), on either backend: what storage code talks to
/// instead of a particular engine. Statements use `?` placeholders (see `SQLDialect`).
protocol SQLSession {
    var dialect: SQLDialect { get }
    /// Runs a statement; returns the rows it changed.
    @discardableResult func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int
    /// Runs a write whose outcome is not needed now. SQLite runs it at once; PostgreSQL sends it without waiting
    /// (pipelined), and a failure fails the next statement that waits, and so the transaction. A later read in the
    /// same transaction sees it.
    func enqueue(_ sql: String, _ arguments: [SQLValue]) throws
    /// Runs a query, handing each row to `body` as it is read.
    func each(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws
    /// `each` for a result its statement bounds (a LIMIT, a list of ids, one row): PostgreSQL reads it in one
    /// piece instead of one result per row, which a page of 200 rows paid for 200 times.
    func eachOfPage(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws
    /// Runs several statements without arguments (schema scripts).
    func script(_ sql: String) throws
    /// Runs `action` once the transaction commits (never if it rolls back): waking listeners, counting.
    func afterCommit(_ action: @escaping @Sendable () -> Void)
    /// Runs an `INSERT` into a table with an `id` key and returns the new row's id (of several rows, the last and
    /// largest).
    func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64
    /// Runs `body` in a savepoint: if it throws, what it wrote is undone and the error goes on.
    func savepoint(_ body: () throws -> Void) throws
}

extension SQLSession {
    func eachOfPage(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws { try each(sql,
            arguments, body) }

    @discardableResult func execute(_ sql: String, _ arguments: SQLBindable...) throws -> Int {
        try execute(sql, arguments.map { $0.sqlValue })
    }

    func enqueue(_ sql: String, _ arguments: SQLBindable...) throws {
        try enqueue(sql, arguments.map { $0.sqlValue })
    }

    /// Every row, mapped.
    func all<T>(_ sql: String, _ arguments: [SQLBindable] = [], _ map: (any SQLRow) throws -> T?) throws -> [T] {
        var out: [T] = []
        try each(sql, arguments.map { $0.sqlValue }) { row in if let v = try map(row) { out.append(v) } }
        return out
    }

    /// The first row, mapped.
    func one<T>(_ sql: String, _ arguments: [SQLBindable] = [], _ map: (any SQLRow) throws -> T?) throws -> T? {
        var out: T?
        try eachOfPage(sql, arguments.map { $0.sqlValue }) { row in if out == nil { out = try map(row) } }
        return out
    }

    /// Whether the query returns a row.
    func exists(_ sql: String, _ arguments: [SQLBindable] = []) throws -> Bool {
        try one(sql, arguments) { _ in true } ?? false
    }

    /// Whether a table of this name exists (in the session's schema).
    func tableExists(_ name: String) throws -> Bool {
        switch dialect {
        case .sqlite: try exists("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [name])
        case .postgres: try exists("SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?", [name])
        }
    }

    /// The first column of the first row as an integer.
    func int64(_ sql: String, _ arguments: [SQLBindable] = []) throws -> Int64? {
        try one(sql, arguments) { $0.int64(0) }
    }
}
