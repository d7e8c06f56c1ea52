import GRDB

extension StatementArguments {
    /// Arguments from values already converted. GRDB's `init(_: some Sequence<some DatabaseValueConvertible>)`
    /// maps with the key path `\.databaseValue`, which Swift instantiates at run time on every call of the
    /// unspecialised generic. The existential initialiser maps with a closure instead. (The write path binds
    /// without `StatementArguments` at all: `Statement.execute(values:)`.)
    static func values(_ values: [DatabaseValue]) -> StatementArguments {
        StatementArguments(values.lazy.map { $0 as (any DatabaseValueConvertible)? })
    }
}
