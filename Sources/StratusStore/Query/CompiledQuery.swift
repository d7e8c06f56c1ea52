/// A query turned into SQL: the statement text, its arguments, and how many extra sort columns
/// follow the record columns (their values become the continuation marker).
struct CompiledQuery {
    var sql: String
    var arguments: [SQLValue]
    var sortKeyCount, fieldCount: Int
}
