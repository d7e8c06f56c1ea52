import Foundation

/// A result row read by column name (`row.string(.name)`), never by position. `offset` is where the selection
/// starts in the row, for a statement that selects another table's columns first.
struct NamedRow<Column: TableColumn> {
    let row: any SQLRow
    let selection: Selection<Column>
    var offset = 0

    init(_ row: any SQLRow, _ selection: Selection<Column>, offset: Int = 0) {
        self.row = row
        self.selection = selection
        self.offset = offset
    }

    private func at(_ column: Column) -> Int { offset + selection.position(of: column) }

    func isNull(_ column: Column) -> Bool { row.isNull(at(column)) }
    func int64(_ column: Column) -> Int64? { row.int64(at(column)) }
    func bool(_ column: Column) -> Bool? { row.bool(at(column)) }
    func double(_ column: Column) -> Double? { row.double(at(column)) }
    func string(_ column: Column) -> String? { row.string(at(column)) }
    func data(_ column: Column) -> Data? { row.data(at(column)) }

    /// The columns after this selection's, for a statement that selects more past them.
    var end: Int { offset + selection.columns.count }
}
