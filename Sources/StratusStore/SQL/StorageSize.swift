/// How many bytes an environment's database takes on its engine, as its quota counts them.
enum StorageSize {
    /// SQLite: the file's pages in use, less what `excludedBytes` says the `excluded` tables hold (they share the
    /// file). PostgreSQL: every table and index of the current schema but the `excluded` tables.
    static func bytes(_ s: any SQLSession, excluding excluded: [String],
                      excludedBytes: () throws -> Int64) throws -> Int64 {
        switch s.dialect {
        case .sqlite:
            let pages = try s.int64("PRAGMA page_count") ?? 0
            let free = try s.int64("PRAGMA freelist_count") ?? 0
            let size = try s.int64("PRAGMA page_size") ?? 4096
            return max(0, (pages - free) * size - (try excludedBytes()))
        case .postgres:
            let names = excluded.map { "'\($0)'" }.joined(separator: ", ")
            return try s.int64("""
                SELECT CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname NOT IN (\(names.isEmpty ? "''" : names))
                """) ?? 0
        }
    }
}
