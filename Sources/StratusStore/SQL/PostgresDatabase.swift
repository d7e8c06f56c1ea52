import Foundation
import StratusPostgres

/// The PostgreSQL backend of `SQLDatabase`: one schema of a database, through a bounded pool. A connection's
/// `search_path` names the schema, so statements name tables as they do on SQLite; every write is a transaction.
final class PostgresDatabase: SQLDatabase {
    let pool: PostgresPool
    let schema: String
    var dialect: SQLDialect { .postgres }

    init(pool: PostgresPool, schema: String) {
        self.pool = pool
        self.schema = schema
    }

    /// A read runs its statements as they come (no BEGIN and COMMIT: each statement sees what is committed when
    /// it starts, as it would in a READ COMMITTED transaction), which saves two round trips a request.
    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        let (value, committed) = try pool.withConnection { c -> (T, [@Sendable () -> Void]) in
            try c.use(schema: schema)
            let session = PostgresSession(connection: c)
            return (try body(session), session.commitActions.actions)
        }
        for action in committed { action() }
        return value
    }

    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        // The schema is set before BEGIN: a SET inside a transaction that rolls back is undone with it.
        // A transaction run again after a serialization failure starts with no commit actions of its attempts before.
        let (value, committed) = try pool.withConnection { c in
            try c.use(schema: schema)
            return try c.transaction { c -> (T, [@Sendable () -> Void]) in
                let session = PostgresSession(connection: c)
                let value = try body(session)
                return (value, session.commitActions.actions)
            }
        }
        for action in committed { action() }
        return value
    }

    func close() {}

    func snapshotRead<T>(_ snapshot: String?, _ body: (any SQLSession) throws -> T) throws -> T {
        try pool.withConnection { c in
            try c.use(schema: schema)
            return try c.transaction(isolation: "REPEATABLE READ, READ ONLY", attempts: 1) { c in
                // Must come before any other statement of the transaction. The id is PostgreSQL's own (no quotes in
                // it).
                if let snapshot { try c.executeScript("SET TRANSACTION SNAPSHOT '\(snapshot.filter { $0.isHexDigit || $0 == "-" })'") }
                return try body(PostgresSession(connection: c))
            }
        }
    }

    func exportingSnapshot<T>(_ body: (any SQLSession, String?) throws -> T) throws -> T {
        try pool.withConnection { c in
            try c.use(schema: schema)
            return try c.transaction(isolation: "REPEATABLE READ, READ ONLY", attempts: 1) { c in
                let session = PostgresSession(connection: c)
                let id = try session.one("SELECT pg_export_snapshot()", []) { $0.string(0) }
                return try body(session, id)
            }
        }
    }

    /// Creates the schema unless it exists.
    func createSchema() throws {
        try pool.withConnection { c in try c.executeScript("CREATE SCHEMA IF NOT EXISTS \(PostgresIdentifier.quoted(schema))") }
    }
}

struct PostgresSession: SQLSession {
    let connection: PostgresConnection
    let commitActions = CommitActions()
    var dialect: SQLDialect { .postgres }

    /// What `afterCommit` queued in one attempt of a transaction.
    final class CommitActions: @unchecked Sendable {
        var actions: [@Sendable () -> Void] = []
    }

    func afterCommit(_ action: @escaping @Sendable () -> Void) { commitActions.actions.append(action) }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        try connection.execute(dialect.placeholders(sql), arguments.map { $0.postgresValue })
    }

    func enqueue(_ sql: String, _ arguments: [SQLValue]) throws {
        try connection.enqueue(dialect.placeholders(sql), arguments.map { $0.postgresValue })
    }

    func each(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        try connection.query(dialect.placeholders(sql), arguments.map { $0.postgresValue }) { row in try body(row) }
    }

    func eachOfPage(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        try connection.query(dialect.placeholders(sql), arguments.map { $0.postgresValue },
                             rowByRow: false) { row in try body(row) }
    }

    func script(_ sql: String) throws { try connection.executeScript(sql) }

    func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        var id: Int64 = 0
        try connection.query(dialect.placeholders(sql) + " RETURNING id",
                             arguments.map { $0.postgresValue }) { row in id = max(id, row.int64(0) ?? 0) }
        return id
    }

    func savepoint(_ body: () throws -> Void) throws {
        try connection.executeScript("SAVEPOINT stratus")
        do { try body() } catch {
            try connection.executeScript("ROLLBACK TO SAVEPOINT stratus")
            throw error
        }
        try connection.executeScript("RELEASE SAVEPOINT stratus")
    }
}

extension PostgresRow: SQLRow {
    func blob(_ column: Int) -> UnsafeRawBufferPointer { raw(column) }

    func sqlValue(_ column: Int) -> SQLValue {
        switch value(column) {
        case .null: .null
        case .int64(let v): .int64(v)
        case .double(let v): .double(v)
        case .bool(let v): .int64(v ? 1 : 0)
        case .text(let v): .text(v)
        case .bytes(let v): .blob(Data(v))
        }
    }
}

extension SQLValue {
    var postgresValue: PostgresValue {
        switch self {
        case .null: .null
        case .int64(let v): .int64(v)
        case .double(let v): .double(v)
        case .text(let v): .text(v)
        case .blob(let v): .bytes(Array(v))
        }
    }
}
