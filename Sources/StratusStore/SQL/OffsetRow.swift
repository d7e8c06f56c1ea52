import Foundation

/// A row read from a later column on: column 0 of the wrapper is column `offset` of the row. A statement that
/// joins a record's row onto other columns (the lookup's directory statement, say) hands the record's part to
/// `RowStreamer` this way, which reads a record from column 0.
struct OffsetRow<Base: SQLRow>: SQLRow {
    let base: Base
    let offset: Int

    func isNull(_ column: Int) -> Bool { base.isNull(column + offset) }
    func int64(_ column: Int) -> Int64? { base.int64(column + offset) }
    func double(_ column: Int) -> Double? { base.double(column + offset) }
    func string(_ column: Int) -> String? { base.string(column + offset) }
    func data(_ column: Int) -> Data? { base.data(column + offset) }
    func utf8(_ column: Int) -> UnsafeBufferPointer<UInt8> { base.utf8(column + offset) }
    func blob(_ column: Int) -> UnsafeRawBufferPointer { base.blob(column + offset) }
    func sqlValue(_ column: Int) -> SQLValue { base.sqlValue(column + offset) }
}
