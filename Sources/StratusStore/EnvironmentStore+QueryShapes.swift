import Foundation
import GRDB
import GRDBSQLite
import StratusModel

/// Query shapes: what the queries an app really runs look like, and what each costs (the console's Query shapes page).
extension EnvironmentStore {
    /// Writes what the shape log gathered, at most once a minute (or now with `force`): totals add up, the latest
    /// window's percentiles replace the old ones.
    func flushQueryShapesIfDue(force: Bool = false) {
        guard let gathered = shapeLog.take(force: force), !gathered.isEmpty else { return }
        let now = Clock.nowMillis()
        try? pool.write { db in
            let st = try db.cachedStatement(sql: """
                INSERT INTO query_shapes(shape, record_type, calls, micros, steps, rows, p50_us, p99_us, last_at, sql) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(shape) DO UPDATE SET calls = calls + excluded.calls, micros = micros + excluded.micros, steps = steps + excluded.steps,
                    rows = rows + excluded.rows, p50_us = excluded.p50_us, p99_us = excluded.p99_us, last_at = excluded.last_at, sql = excluded.sql
                """)
            for (shape, s) in gathered {
                try st.execute(arguments: [shape.description, shape.recordType, s.calls, s.micros, s.steps, s.rows,
                                           s.percentile(0.5), s.percentile(0.99), now, s.sql])
            }
        }
    }

    /// Every shape this environment has run, most called first, with SQLite's plan for it.
    public func queryShapes() throws(StratusError) -> [QueryShapeReport] {
        flushQueryShapesIfDue(force: true)
        return try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT shape, record_type, calls, micros, steps, rows, p50_us, p99_us, last_at, sql FROM query_shapes ORDER BY calls DESC, shape")
                .map { r in
                    let calls: Int = r[2], micros: Int = r[3], steps: Int = r[4], rows: Int = r[5]
                    let sql: String = r[9]
                    // The statement's parameters are unbound here: the plan SQLite picks without values, as it does for a
                    // prepared statement before its first step.
                    let plan = (try? Self.explain(sql, db)) ?? ["(no longer valid for the schema)"]
                    return QueryShapeReport(shape: r[0], recordType: r[1], calls: calls, p50Milliseconds: Double(r[6] as Int) / 1000,
                                            p99Milliseconds: Double(r[7] as Int) / 1000, meanMilliseconds: calls == 0 ? 0 : Double(micros) / Double(calls) / 1000,
                                            stepsPerRow: Double(steps) / Double(max(rows, 1)), lastAt: r[8], plan: plan)
                }
        }
    }

    /// SQLite's plan for a statement, its parameters left NULL (the plan a prepared statement gets before its values).
    static func explain(_ sql: String, _ db: Database) throws -> [String] {
        let st = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        let count = Int(sqlite3_bind_parameter_count(st.sqliteStatement))
        return try Row.fetchAll(st, arguments: StatementArguments(Array(repeating: DatabaseValue.null, count: count))).map { $0["detail"] as String? ?? "" }
    }
}
