import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// An environment's tables are written twice, once as SQLite's history of migrations and once as PostgreSQL's
/// snapshot (see EnvironmentMigrations): the two must end with the same tables and the same columns, or a
/// `stratus migrate` between them, or code that runs on both, goes wrong. Record types' own tables (`t…`) and the
/// engines' own bookkeeping are left out; indexes and column types differ by engine and are not compared.
@Suite struct SchemaParityTests {
    static func columns(_ env: EnvironmentStore) throws -> [String: Set<String>] {
        try env.read { s, _ in
            var out: [String: Set<String>] = [:]
            if s.dialect == .sqlite {
                let tables = try s.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'", []) { $0.string(0) }
                for t in tables {
                    out[t] = Set(try s.all("SELECT name FROM pragma_table_info(?)", [t]) { $0.string(0) })
                }
            } else {
                let rows = try s.all("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()", []) { r in
                    (r.string(0) ?? "", r.string(1) ?? "")
                }
                for (t, c) in rows { out[t, default: []].insert(c) }
            }
            // Record types' tables, full-text and list side tables are the catalog's, made per type.
            return out.filter { name, _ in !(name.first == "t" && name.dropFirst().first?.isNumber == true) && !name.hasPrefix("fts_") && !name.hasPrefix("l_") }
        }
    }

    @Test func sqliteAndPostgresEnvironmentsHaveTheSameTablesAndColumns() async throws {
        guard let (pg, cleanup) = try await Backend.postgres.makeStore() else { return }
        defer { cleanup() }
        guard let (lite, cleanupLite) = try await Backend.sqlite.makeStore() else { return }
        defer { cleanupLite() }
        let (a, b) = try await offPool { () throws -> ([String: Set<String>], [String: Set<String>]) in
            let c = try ContainerID("iCloud.com.example.Parity")
            try pg.createContainer(c)
            try lite.createContainer(c)
            return (try Self.columns(lite.environment(c, .development)), try Self.columns(pg.environment(c, .development)))
        }
        // PostgreSQL keeps asset content in the database (every node serves it; SQLite keeps files beside it), and
        // its migrations' log (GRDB keeps SQLite's, grdb_migrations, left out above).
        let ownTables: Set<String> = ["asset_chunks", "schema_migrations"]
        let onlySQLite = Set(a.keys).subtracting(b.keys), onlyPostgres = Set(b.keys).subtracting(a.keys).subtracting(ownTables)
        #expect(onlySQLite.isEmpty, "tables only SQLite has: \(onlySQLite.sorted())")
        #expect(onlyPostgres.isEmpty, "tables only PostgreSQL has: \(onlyPostgres.sorted())")
        for t in Set(a.keys).intersection(b.keys).sorted() where a[t] != b[t] {
            Issue.record("\(t): only SQLite has \(a[t]!.subtracting(b[t]!).sorted()), only PostgreSQL has \(b[t]!.subtracting(a[t]!).sorted())")
        }
        #expect(a.count > 20, "found only \(a.count) tables")
    }
}
