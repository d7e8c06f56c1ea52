import StratusPostgres

/// The engine's own check of its pages, which `stratus check` runs before its own: SQLite's integrity check, and
/// PostgreSQL's `amcheck` on every B-tree index of one schema where the extension is installed (installing it is the
/// operator's choice).
enum EngineCheck {
    /// The session's engine's check: SQLite's of its database, PostgreSQL's of `schema`'s indexes.
    static func run(_ s: any SQLSession, schema: String, into report: inout ConsistencyCheck.Report) throws {
        switch s.dialect {
        case .sqlite: try sqlite(s, into: &report)
        case .postgres: try postgres(s, schema: schema, into: &report)
        }
    }

    /// SQLite's `integrity_check` of the session's database.
    static func sqlite(_ s: any SQLSession, into report: inout ConsistencyCheck.Report) throws {
        let result = try s.all("PRAGMA integrity_check", []) { $0.string(0) ?? "" }.joined(separator: "\n")
        if result != "ok" { report.problems.append("SQLite's integrity check: \(result.prefix(2_000))") }
    }

    /// `amcheck` on the B-tree indexes of `schema`.
    static func postgres(_ s: any SQLSession, schema: String, into report: inout ConsistencyCheck.Report) throws {
        // The extension's functions live in the schema it was created in, which is not on a store's path.
        guard let home = try s.one("SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'amcheck'", [], { $0.string(0) }) else {
            report.notes.append("PostgreSQL's indexes were not checked: amcheck is not installed (CREATE EXTENSION amcheck, as a superuser)")
            return
        }
        let indexes = try s.all("""
            SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_am a ON a.oid = c.relam WHERE n.nspname = ? AND a.amname = 'btree' ORDER BY c.relname
            """, [schema]) { $0.string(0) }
        for index in indexes {
            do {
                _ = try s.all("""
                    SELECT \(PostgresIdentifier.quoted(home)).bt_index_check(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = ? AND c.relname = ?
                    """, [schema, index]) { _ in 0 }
            } catch {
                report.problems.append("PostgreSQL's amcheck on index \(index): \(String(describing: error).prefix(500))")
            }
        }
    }
}
