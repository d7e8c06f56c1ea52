import GRDB

extension StatementArguments {
    /// Arguments from values already converted. GRDB's `init(_: some Sequence<some DatabaseValueConvertible>)`
    /// maps with the key path `\.databaseValue`, which Swift instantiates at run time on every call of the
    /// unspecialised generic: a fifth of bulk import's CPU went there. The existential initialiser maps with a
    /// closure instead.
    static func values(_ values: [DatabaseValue]) -> StatementArguments {
        StatementArguments(values.lazy.map { $0 as (any DatabaseValueConvertible)? })
    }
}
