import Foundation

/// One row of a result, valid inside the callback that receives it. Columns are read by position, in the order
/// the statement selects them; both backends answer the same SQL with the same positions.
protocol SQLRow {
    func isNull(_ column: Int) -> Bool
    func int64(_ column: Int) -> Int64?
    func double(_ column: Int) -> Double?
    func string(_ column: Int) -> String?
    func data(_ column: Int) -> Data?
    /// A text column's UTF-8 bytes in place, valid until the next row (empty when NULL).
    func utf8(_ column: Int) -> UnsafeBufferPointer<UInt8>
    /// A blob column's bytes in place, valid until the next row (empty when NULL).
    func blob(_ column: Int) -> UnsafeRawBufferPointer
    /// The column's value as its storage type says.
    func sqlValue(_ column: Int) -> SQLValue
}

extension SQLRow {
    func bool(_ column: Int) -> Bool? { int64(column).map { $0 != 0 } }
}
