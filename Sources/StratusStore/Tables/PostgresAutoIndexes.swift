import Foundation
import StratusModel

/// Automatic indexes on PostgreSQL: a plain composite B-tree index on the type's table (zone, equality fields, the
/// order field, id), which the planner picks by itself — no index table, no triggers. It is built with
/// `CREATE INDEX CONCURRENTLY`, outside any transaction, so no write waits for it; one node builds it (a session
/// advisory lock on the index's name), and the others learn of it through the `auto_indexes` row and the schema
/// generation, as of every catalog change. A build that fails leaves an INVALID index behind: it is dropped, and
/// the shape is tried again after `retryFailedAfter`.
enum PostgresAutoIndexes {
    /// What the catalog's and the lock functions' answers are read as.
    private enum AnswerColumn: String, TableColumn {
        case answer
    }

    private static func answer(_ r: any SQLRow) -> Bool? { NamedRow(r,
                                                                    Selection<AnswerColumn>([.answer])).bool(.answer) }

    /// Builds the index in autocommit statements on one connection. False when another node holds the build.
    static func build(_ ai: AutoIndex, _ type: CatalogType, columns: [String], _ s: any SQLSession) throws -> Bool {
        guard try s.one("SELECT pg_try_advisory_lock(hashtext(current_schema() || '.' || ?))::int AS answer", [ai.name],
                        answer) == true else { return false }
        defer { _ = try? s.all("SELECT pg_advisory_unlock(hashtext(current_schema() || '.' || ?))::int AS answer",
                               [ai.name], answer) }
        // An earlier attempt that died (this node or another) left an INVALID index of this name: start again.
        if try valid(ai.name, s) == false { try s.script("DROP INDEX CONCURRENTLY IF EXISTS \(ai.name)") }
        do {
            // The order field NULLS FIRST, as the query compiler orders (ascending NULLS FIRST, descending NULLS LAST:
            // the
            // same index read backwards), so one index serves both directions without a sort.
            let keys = columns.dropLast() + [columns.last.map { $0 + " NULLS FIRST" } ?? "", "id"]
            try s.script("CREATE INDEX CONCURRENTLY IF NOT EXISTS \(ai.name) ON \(type.table) (\(keys.filter { !$0.isEmpty }.joined(separator: ", ")))")
            guard try valid(ai.name, s) == true else { throw StratusError(.internalError,
                    "index \(ai.name) was left invalid") }
        } catch {
            try? s.script("DROP INDEX CONCURRENTLY IF EXISTS \(ai.name)")
            throw error
        }
        return true
    }

    /// Whether the index exists and is valid in the current schema (nil: it does not exist).
    static func valid(_ name: String, _ s: any SQLSession) throws -> Bool? {
        try s.one("""
            SELECT i.indisvalid::int AS answer FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = current_schema() AND c.relname = ?
            """, [name], answer)
    }
}
