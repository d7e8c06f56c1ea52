import Foundation
import GRDB
import GRDBSQLite

/// The SQLite backend of `SQLDatabase`: a GRDB queue or pool behind the store's close gate.
final class SQLiteDatabase<Base: DatabaseWriter>: SQLDatabase {
    let gated: GatedDatabase<Base>
    var dialect: SQLDialect { .sqlite }

    init(_ gated: GatedDatabase<Base>) { self.gated = gated }

    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T { try gated.read { db in try body(SQLiteSession(db: db)) } }
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T { try gated.write { db in try body(SQLiteSession(db: db)) } }
    func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T {
        try gated.readStatement { db in try body(SQLiteSession(db: db)) }
    }
    func close() { try? gated.close() }
}

/// A SQLite file with one connection: the control database, the request log and telemetry, a backup's copies.
typealias SQLiteQueueFile = SQLiteDatabase<DatabaseQueue>

extension SQLiteDatabase where Base == DatabaseQueue {
    /// A small SQLite file of its own beside the control database (the request log, telemetry): WAL, normal
    /// synchronisation (losing the last second of a log to a power cut is acceptable), migrated.
    static func logFile(_ file: URL, migrations: SQLMigrations) throws -> SQLiteDatabase<DatabaseQueue> {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let q = try DatabaseQueue(path: file.path, configuration: config)
        try q.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
        try migrations.migrate(q)
        return SQLiteDatabase(GatedDatabase(q))
    }

    /// The store's control database (`stratus.sqlite`), committing as the store's durability says, migrated.
    static func controlFile(_ file: URL, durability: Durability,
                            migrations: SQLMigrations) throws -> SQLiteDatabase<DatabaseQueue> {
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = \(durability.synchronousPragma)") }
        let q = try DatabaseQueue(path: file.path, configuration: config)
        PrivateFiles.file(file)
        try migrations.migrate(q)
        return SQLiteDatabase(GatedDatabase(q))
    }

    /// A database file opened as it is (no migrations), for reading a copy.
    static func existing(_ file: URL) throws -> SQLiteDatabase<DatabaseQueue> {
        SQLiteDatabase(GatedDatabase(try DatabaseQueue(path: file.path)))
    }

    /// Copies the database at `source` into a new self-contained file at `target` through SQLite's backup API: a
    /// consistent snapshot even while another process writes. The copy has a rollback journal, so nothing lies
    /// beside it.
    static func copy(_ source: URL, to target: URL) throws {
        var config = Configuration()
        config.busyMode = .timeout(30)
        let from = try DatabaseQueue(path: source.path, configuration: config)
        let copy = try DatabaseQueue(path: target.path)
        try from.backup(to: copy)
        try copy.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
        try copy.close()
        try from.close()
    }
}

/// A GRDB `Database` as a session: statements are cached per connection and bound through SQLite's C API.
struct SQLiteSession: SQLSession {
    /// SQLite's `EXPLAIN QUERY PLAN` of a statement, its parameters left NULL (the plan a prepared statement
    /// gets before its values), one line per step.
    func queryPlan(_ sql: String) throws -> [String] {
        let st = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        let count = Int(sqlite3_bind_parameter_count(st.sqliteStatement))
        return try Row.fetchAll(st, arguments: StatementArguments.values(Array(repeating: DatabaseValue.null,
                count: count))).map { $0["detail"] as String? ?? "" }
    }

    let db: Database
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.execute(values: arguments)
        return db.changesCount
    }

    func each(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        statement.bind(values: arguments)
        let cursor = StepCursor(statement)
        let row = SQLiteRow(statement.sqliteStatement)
        while try cursor.next() != nil { try body(row) }
    }

    func enqueue(_ sql: String, _ arguments: [SQLValue]) throws { try execute(sql, arguments) }

    func insert(_ sql: String, _ arguments: [SQLValue]) throws -> Int64 {
        try execute(sql, arguments)
        return db.lastInsertedRowID
    }

    func savepoint(_ body: () throws -> Void) throws {
        try db.inSavepoint {
            try body()
            return .commit
        }
    }

    func script(_ sql: String) throws { try db.execute(sql: sql) }

    func afterCommit(_ action: @escaping @Sendable () -> Void) { db.afterNextTransaction(onCommit: { _ in action() }) }
}

extension Database {
    /// This connection as a session, for storage code written once for both backends.
    var sql: SQLiteSession { SQLiteSession(db: self) }
}

/// The current row of a SQLite statement, read through the C API (no GRDB `Row` in between).
struct SQLiteRow: SQLRow {
    let statement: SQLiteStatement
    init(_ statement: SQLiteStatement) { self.statement = statement }

    @inline(__always) func isNull(_ column: Int) -> Bool { sqlite3_column_type(statement,
            Int32(column)) == SQLITE_NULL }
    func int64(_ column: Int) -> Int64? { isNull(column) ? nil : sqlite3_column_int64(statement, Int32(column)) }
    func double(_ column: Int) -> Double? { isNull(column) ? nil : sqlite3_column_double(statement, Int32(column)) }
    func string(_ column: Int) -> String? { isNull(column) ? nil : String(decoding: utf8(column), as: UTF8.self) }
    func data(_ column: Int) -> Data? { isNull(column) ? nil : Data(blob(column)) }

    @inline(__always) func utf8(_ column: Int) -> UnsafeBufferPointer<UInt8> {
        let p = sqlite3_column_text(statement, Int32(column))
        return UnsafeBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(statement, Int32(column))))
    }

    @inline(__always) func blob(_ column: Int) -> UnsafeRawBufferPointer {
        let p = sqlite3_column_blob(statement, Int32(column))
        return UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(statement,
                Int32(column))))
    }

    func sqlValue(_ column: Int) -> SQLValue {
        switch sqlite3_column_type(statement, Int32(column)) {
        case SQLITE_INTEGER: .int64(sqlite3_column_int64(statement, Int32(column)))
        case SQLITE_FLOAT: .double(sqlite3_column_double(statement, Int32(column)))
        case SQLITE_TEXT: .text(String(decoding: utf8(column), as: UTF8.self))
        case SQLITE_BLOB: .blob(Data(blob(column)))
        default: .null
        }
    }
}

extension DatabaseValue {
    var sqlValue: SQLValue {
        switch storage {
        case .null: .null
        case .int64(let v): .int64(v)
        case .double(let v): .double(v)
        case .string(let v): .text(v)
        case .blob(let v): .blob(v)
        }
    }
}
