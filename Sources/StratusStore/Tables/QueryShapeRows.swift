import Foundation
import StratusModel

/// `query_shapes`: the shapes of the queries an environment ran, with their totals, latest percentiles, the SQL of
/// the latest and the shape itself (as JSON) for the index builder. Every statement on it is here.
enum QueryShapeRows {
    enum Column: String, TableColumn {
        case shape, calls, micros, steps, rows, sql, spec
        case recordType = "record_type", p50 = "p50_us", p99 = "p99_us", lastAt = "last_at"
    }

    /// A shape's row as the console reads it.
    struct Row {
        var shape, recordType, sql: String
        var calls, micros, steps, rows, p50, p99: Int
        var lastAt: Int64
    }

    private static let totals = Selection<Column>([.calls, .steps, .rows])
    private static let report = Selection<Column>([.shape, .recordType, .calls, .micros, .steps, .rows, .p50, .p99,
                                                   .lastAt, .sql])

    /// Adds a window's counts to the shape's totals (its percentiles and SQL replace the old ones); returns the
    /// totals after.
    static func record(_ shape: QueryShape, _ st: ShapeLog.Stats, spec: String, at now: Int64,
                       _ s: any SQLSession) throws -> (calls: Int, steps: Int, rows: Int)? {
        try s.one("""
            INSERT INTO query_shapes(shape, record_type, calls, micros, steps, rows, p50_us, p99_us, last_at, sql, spec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(shape) DO UPDATE SET calls = query_shapes.calls + excluded.calls, micros = query_shapes.micros + excluded.micros,
                steps = query_shapes.steps + excluded.steps, rows = query_shapes.rows + excluded.rows, p50_us = excluded.p50_us,
                p99_us = excluded.p99_us, last_at = excluded.last_at, sql = excluded.sql
            RETURNING \(totals.sql)
            """, [shape.description, shape.recordType, st.calls, st.micros, st.steps, st.rows, st.percentile(0.5), st.percentile(0.99), now, st.sql, spec]) { r in
            let row = NamedRow(r, totals)
            return (Int(row.int64(.calls) ?? 0), Int(row.int64(.steps) ?? 0), Int(row.int64(.rows) ?? 0))
        }
    }

    static func all(_ s: any SQLSession) throws -> [Row] {
        try s.all("SELECT \(report.sql) FROM query_shapes") { r in
            let row = NamedRow(r, report)
            func int(_ c: Column) -> Int { Int(row.int64(c) ?? 0) }
            return Row(shape: row.string(.shape) ?? "", recordType: row.string(.recordType) ?? "",
                       sql: row.string(.sql) ?? "", calls: int(.calls),
                       micros: int(.micros), steps: int(.steps), rows: int(.rows), p50: int(.p50), p99: int(.p99), lastAt: row.int64(.lastAt) ?? 0)
        }
    }

    /// The shape of this description, as JSON.
    static func spec(of description: String, _ s: any SQLSession) throws -> String? {
        try s.one("SELECT spec FROM query_shapes WHERE shape = ?", [description]) { NamedRow($0,
                Selection<Column>([.spec])).string(.spec) }
    }

    /// Every shape, as JSON, in the order of their descriptions.
    static func specs(_ s: any SQLSession) throws -> [String] {
        try s.all("SELECT spec FROM query_shapes ORDER BY shape") { NamedRow($0,
                Selection<Column>([.spec])).string(.spec) }
    }

    static func removeAll(_ s: any SQLSession) throws {
        try s.execute("DELETE FROM query_shapes", [])
    }
}
