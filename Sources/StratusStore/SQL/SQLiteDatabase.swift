import Foundation
import GRDB

/// The SQLite backend of `SQLDatabase`: a GRDB queue or pool behind the store's close gate.
final class SQLiteDatabase<Base: DatabaseWriter>: SQLDatabase {
    let gated: GatedDatabase<Base>
    var dialect: SQLDialect { .sqlite }

    init(_ gated: GatedDatabase<Base>) { self.gated = gated }

    func read<T>(_ body: (any SQLSession) throws -> T) throws -> T { try gated.read { db in try body(SQLiteSession(db: db)) } }
    func write<T>(_ body: (any SQLSession) throws -> T) throws -> T { try gated.write { db in try body(SQLiteSession(db: db)) } }
    func close() { try? gated.close() }
}

/// A GRDB `Database` as a session: statements are cached per connection and bound through SQLite's C API.
struct SQLiteSession: SQLSession {
    let db: Database
    var dialect: SQLDialect { .sqlite }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        let statement = try db.cachedStatement(sql: sql)
        try statement.execute(values: arguments.map { $0.databaseValue })
        return db.changesCount
    }

    func each(_ sql: String, _ arguments: [SQLValue], _ body: (any SQLRow) throws -> Void) throws {
        let statement = try db.cachedStatement(sql: sql)
        statement.bind(values: arguments.map { $0.databaseValue })
        let cursor = try Row.fetchCursor(statement)
        while let row = try cursor.next() { try body(SQLiteRow(row: row)) }
    }

    func script(_ sql: String) throws { try db.execute(sql: sql) }

    func afterCommit(_ action: @escaping @Sendable () -> Void) { db.afterNextTransaction(onCommit: { _ in action() }) }
}

extension Database {
    /// This connection as a session, for storage code written once for both backends.
    var sql: SQLiteSession { SQLiteSession(db: self) }
}

struct SQLiteRow: SQLRow {
    let row: Row
    func isNull(_ column: Int) -> Bool { row.hasNull(atIndex: column) }
    func int64(_ column: Int) -> Int64? { row[column] }
    func double(_ column: Int) -> Double? { row[column] }
    func string(_ column: Int) -> String? { row[column] }
    func data(_ column: Int) -> Data? { row[column] }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .int64(let v): v.databaseValue
        case .double(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .blob(let v): v.databaseValue
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
