import Foundation
import GRDB
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// An environment's tables are declared once (`EnvironmentMigrations.baseline`, which new SQLite files and every
/// PostgreSQL schema start from) and kept as SQLite's history for files made before: the history must end where
/// the declaration does, and the two engines with the same tables and columns, or a `stratus migrate` between
/// them, or code that runs on both, goes wrong. Record types' own tables (`t…`) and the
/// engines' own bookkeeping are left out; indexes and column types differ by engine and are not compared.
@Suite struct SchemaParityTests {
    static func columns(_ env: EnvironmentStore) throws -> [String: Set<String>] {
        try env.core.read { s, _ in
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

    /// Everything SQLite says of a database's fixed tables: columns (name, type, not null, default, key), whether a
    /// table has rowids, its indexes (unique, partial, their columns and WHERE), and the seeded `meta` rows.
    static func structure(_ q: DatabaseQueue) throws -> [String] {
        try q.read { db in
            var out: [String] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations' ORDER BY name")
            for t in tables {
                for r in try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid", arguments: [t]) {
                    let name: String = r[0], type: String = r[1]
                    // `meta.value` has no declared type in v1; the declaration says INTEGER, which every value in it is
                    // (PostgreSQL needs a type). The one difference, and a harmless one.
                    let shown = t == "meta" && name == "value" ? "(any)" : type
                    out.append("\(t).\(name) \(shown) notnull=\(r[2] as Int) default=\(r[3] as String? ?? "-") pk=\(r[4] as Int)")
                }
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [t]) ?? ""
                out.append("\(t) rowid=\(!sql.uppercased().contains("WITHOUT ROWID"))")
                for r in try Row.fetchAll(db, sql: "SELECT name, \"unique\", partial FROM pragma_index_list(?) WHERE origin = 'c'", arguments: [t]) {
                    let index: String = r[0]
                    let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [index])
                    let indexSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [index]) ?? ""
                    let condition = indexSQL.range(of: " WHERE ").map { String(indexSQL[$0.upperBound...]) } ?? ""
                    out.append("index \(index) on \(t)(\(columns.joined(separator: ","))) unique=\(r[1] as Int) where=\(condition)")
                }
            }
            out += try Row.fetchAll(db, sql: "SELECT key, value FROM meta ORDER BY key").map { "meta \($0[0] as String)=\($0[1] as DatabaseValue)" }
            return out
        }
    }

    /// A new SQLite file starts from the one declaration (`EnvironmentMigrations.baseline`), a file made before
    /// comes through the history v1…v11: both end the same, down to indexes and rowids, then take the same steps.
    @Test func theDeclarationAndTheHistoryMakeTheSameSQLiteDatabase() throws {
        let history = try DatabaseQueue()
        try EnvironmentMigrations.migrator.migrate(history)
        let declared = try DatabaseQueue()
        try EnvironmentMigrations.migrate(declared)
        let (a, b) = (try Self.structure(history), try Self.structure(declared))
        #expect(a.count > 100, "found only \(a.count) facts")
        for line in Set(a).subtracting(b).sorted() { Issue.record("only the history has: \(line)") }
        for line in Set(b).subtracting(a).sorted() { Issue.record("only the declaration has: \(line)") }
        let applied = try declared.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        let all = try history.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        #expect(applied == all, "a new file records every step of the history as applied")
    }
}
