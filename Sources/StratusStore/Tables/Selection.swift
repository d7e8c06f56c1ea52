/// The columns one statement selects, in order: it writes the select list and tells a `NamedRow` where each
/// column is. `alias` qualifies the names when the statement joins tables (`z.id`).
struct Selection<Column: TableColumn>: Sendable {
    let columns: [Column]
    let alias: String?
    /// The select list: `id, name` or, with an alias, `z.id, z.name` (made once; the hot statements' selections
    /// are their tables' static constants).
    let sql: String

    init(_ columns: [Column], as alias: String? = nil) {
        self.columns = columns
        self.alias = alias
        let prefix = alias.map { $0 + "." } ?? ""
        sql = columns.map { prefix + Self.quoted($0.rawValue) }.joined(separator: ", ")
    }

    /// A column's name as a statement writes it: `user` is a keyword on PostgreSQL, written quoted.
    static func quoted(_ name: String) -> String { name == "user" ? #""user""# : name }

    /// Where `column` is in the list. Reading a column a statement did not select is the table's own bug.
    func position(of column: Column) -> Int {
        guard let i = columns.firstIndex(of: column) else { preconditionFailure("\(column.rawValue) is not selected") }
        return i
    }
}
