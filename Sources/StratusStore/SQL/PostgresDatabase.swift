import Foundation
import StratusPostgres

/// The PostgreSQL backend of `SQLDatabase`: one schema of a database, through a bounded pool. Every read and
/// write is a transaction whose `search_path` is the schema, so statements name tables as they do on SQLite.
final class PostgresDatabase: SQLDatabase {
    let pool: PostgresPool
    let schema: String
    var dialect: SQLDialect { .postgres }

    init(pool: PostgresPool, schema: String) {
        self.pool = pool
        self.schema = schema
    }

    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T { try run(body) }
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T { try run(body) }
    func close() {}

    private func run<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        // A transaction run again after a serialization failure starts with no commit actions of its attempts before.
        let (value, committed) = try pool.transaction { c -> (T, [@Sendable () -> Void]) in
            try c.executeScript("SET LOCAL search_path TO \(PostgresIdentifier.quoted(schema))")
            let session = PostgresSession(connection: c)
            let value = try body(session)
            return (value, session.commitActions.actions)
        }
        for action in committed { action() }
        return value
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

    func script(_ sql: String) throws { try connection.executeScript(sql) }

    func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        var id: Int64 = 0
        try connection.query(dialect.placeholders(sql) + " RETURNING id", arguments.map { $0.postgresValue }) { row in id = row.int64(0) ?? 0 }
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
