import GRDB
import GRDBSQLite

/// Steps a statement whose arguments `bind(values:)` set, for `SQLiteSession.each`, whose callers read each row's
/// columns in place through `SQLiteRow` (SQLite's C API). GRDB's `Row.fetchCursor` made a `Row` first, and every
/// `Row` indexes its statement's column names, lowercased, in a new dictionary, spent on names nothing here asks
/// for. Stepping still goes through GRDB (`DatabaseCursor`), so its
/// transaction and error bookkeeping sees every statement.
final class StepCursor: DatabaseCursor {
    typealias Element = Void
    let _statement: Statement
    var _isDone = false

    /// `statement` was reset by binding its arguments (`bind(values:)`).
    init(_ statement: Statement) { _statement = statement }

    /// Leaves the statement reset, as GRDB's cursors do, so a statement that stopped early holds no read open.
    deinit { sqlite3_reset(_statement.sqliteStatement) }

    func _element(sqliteStatement: SQLiteStatement) {}
}
