import Foundation
import GRDB
import GRDBSQLite

extension Statement {
    /// Runs the statement with `values` bound through SQLite's C API. Building `StatementArguments` for each
    /// write goes through GRDB's unspecialised generic initialisers, and a
    /// `DatabaseValue` array per statement costs a copy of every value: the storage layer's values are bound
    /// directly. Strings and blobs are copied by SQLite.
    func execute(values: [SQLValue]) throws {
        bind(values: values)
        try execute()
    }

    /// Binds `values` as the statement's arguments (see `execute(values:)`). A cursor made afterwards without
    /// arguments (`StepCursor`, `Row.fetchCursor(statement)`) steps the statement with them.
    func bind(values: [SQLValue]) {
        // Resets the statement, clears its bindings and marks them valid, so later executions only step it.
        setUncheckedArguments(StatementArguments())
        let s = sqliteStatement
        for (i, v) in values.enumerated() {
            let index = CInt(i + 1)
            switch v {
            case .null: sqlite3_bind_null(s, index)
            case .int64(let n): sqlite3_bind_int64(s, index, n)
            case .double(let d): sqlite3_bind_double(s, index, d)
            case .text(let text): Self.bind(text, s, index)
            case .blob(let data): Self.bind(data, s, index)
            }
        }
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the bind returns.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    private static func bind(_ text: String, _ s: SQLiteStatement, _ index: CInt) {
        var text = text
        text.withUTF8 { b in
            if let base = b.baseAddress, b.count > 0 {
                _ = base.withMemoryRebound(to: CChar.self, capacity: b.count) { sqlite3_bind_text(s, index, $0,
                        CInt(b.count), transient) }
            } else {
                _ = sqlite3_bind_text(s, index, "", 0, transient)
            }
        }
    }

    private static func bind(_ data: Data, _ s: SQLiteStatement, _ index: CInt) {
        if data.isEmpty {
            sqlite3_bind_zeroblob(s, index, 0)
        } else {
            data.withUnsafeBytes { b in _ = sqlite3_bind_blob(s, index, b.baseAddress, CInt(b.count), transient) }
        }
    }
}
