import Foundation
import StratusModel
import GRDB
import StratusPostgres

/// Named schema steps, applied once each and in order, on either backend. On SQLite they run through GRDB's
/// migrator under the same names as ever, so existing data directories carry on; on PostgreSQL a
/// `schema_migrations` table keeps the names, and an advisory lock keeps two nodes from migrating at once.
struct SQLMigrations {
    private(set) var steps: [(name: String, apply: @Sendable (any SQLSession) throws -> Void)] = []

    mutating func add(_ name: String,
                      _ apply: @escaping @Sendable (any SQLSession) throws -> Void) { steps.append((name, apply)) }

    /// A step that runs a DDL script written in SQLite's spelling (see `SQLDialect.ddl`).
    mutating func add(_ name: String, ddl: String) { add(name) { s in try s.script(s.dialect.ddl(ddl)) } }

    func migrate(_ queue: some DatabaseWriter) throws {
        var m = DatabaseMigrator()
        for step in steps { m.registerMigration(step.name) { db in try step.apply(SQLiteSession(db: db)) } }
        try m.migrate(queue)
    }

    func migrate(_ db: PostgresDatabase) throws {
        // Two nodes may create the schema at once: the loser's error is harmless (the steps below fail loudly if
        // the schema truly is not there).
        try? db.createSchema()
        try db.write { s in
            // One migrator at a time across every node on this database.
            try s.execute("SELECT pg_advisory_xact_lock(?)", Int64(7_173_001))
            try s.script("CREATE TABLE IF NOT EXISTS schema_migrations(name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            let done = Set(try s.all("SELECT name FROM schema_migrations") { $0.string(0) })
            for step in steps where !done.contains(step.name) {
                try step.apply(s)
                try s.execute("INSERT INTO schema_migrations(name, applied_at) VALUES (?, ?)", step.name,
                              WallClock.nowMillis())
            }
        }
    }
}
