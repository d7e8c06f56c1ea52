import Foundation

/// One row of a result, valid inside the callback that receives it. Columns are read by position, in the order
/// the statement selects them; both backends answer the same SQL with the same positions.
protocol SQLRow {
    func isNull(_ column: Int) -> Bool
    func int64(_ column: Int) -> Int64?
    func double(_ column: Int) -> Double?
    func string(_ column: Int) -> String?
    func data(_ column: Int) -> Data?
}

extension SQLRow {
    func bool(_ column: Int) -> Bool? { int64(column).map { $0 != 0 } }
}
