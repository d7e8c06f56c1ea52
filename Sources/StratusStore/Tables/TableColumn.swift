/// A table's columns by name, as its row type declares them (GRDB's `enum Columns`): the table's statements are
/// written with them and its rows are read through them, so a column is renamed or moved in one file.
protocol TableColumn: RawRepresentable, Hashable, Sendable where RawValue == String {}
