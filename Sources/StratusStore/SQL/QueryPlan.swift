/// The engine's plan for a statement (the console's Query shapes and Query pages show it).
enum QueryPlan {
    /// SQLite's leaves the parameters NULL (the plan a prepared statement gets before its values); PostgreSQL's
    /// needs the `arguments` the statement runs with, and has none without them.
    static func explain(_ sql: String, _ s: any SQLSession, arguments: [SQLValue]? = nil) throws -> [String] {
        if let sqlite = s as? SQLiteSession { return try sqlite.queryPlan(sql) }
        guard let arguments else { return [] }
        return try s.all("EXPLAIN (COSTS OFF) " + sql, arguments) { $0.string(0) }
    }
}
