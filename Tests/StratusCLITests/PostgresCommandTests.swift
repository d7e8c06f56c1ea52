import Foundation
import Testing
import StratusTestSupport

/// The commands that keep control data take `--database-url` (or `STRATUS_DATABASE_URL`) and then use PostgreSQL.
@Suite struct PostgresCommandTests {
    @Test func containersAndTokensLiveInPostgres() async throws {
        guard let db = try await TestPostgres.freshDatabase() else { #expect(!TestPostgres.required); return }
        defer { db.drop() }
        let c = "iCloud.com.example.OnPostgres"
        let created = try await Executables.run("stratus", ["container", "create", c, "--database-url", db.url])
        #expect(created.status == 0, "\(created.stderr)")
        let dup = try await Executables.run("stratus", ["container", "create", c, "--database-url", db.url])
        #expect(dup.status != 0 && dup.stderr.contains("already exists"))
        // The environment variable names the same database; nothing is written to a data directory.
        let cwd = FileManager.default.currentDirectoryPath
        let list = try await Executables.run("stratus", ["container", "list"], environment: ["STRATUS_DATABASE_URL": db.url])
        #expect(list.stdout == "\(c)\n" && !FileManager.default.fileExists(atPath: cwd + "/data/stratus.sqlite"))
        let token = try await Executables.run("stratus", ["token", "create", "--container", c, "--environment", "development", "--name", "ci", "--database-url", db.url])
        #expect(token.status == 0 && token.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 64, "\(token.stderr)")
        let tokens = try await Executables.run("stratus", ["token", "list", "--container", c, "--environment", "development", "--database-url", db.url])
        #expect(tokens.stdout.contains("\tci\tactive"), "\(tokens.stdout)")
        // The rows are PostgreSQL's, in the schema `stratus`.
        #expect(try TestPostgres.psql(db.url, "SELECT id FROM stratus.containers") == c)

        // Schemas: import into Development, deploy, export Production.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pg-schema-\(UUID().uuidString).ckdb")
        defer { try? FileManager.default.removeItem(at: file) }
        try "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE SORTABLE, body STRING SEARCHABLE, GRANT READ TO \"_world\" );"
            .write(to: file, atomically: true, encoding: .utf8)
        let imported = try await Executables.run("stratus", ["schema", "import", "--container", c, "--file", file.path, "--database-url", db.url])
        #expect(imported.status == 0, "\(imported.stderr)")
        let deployed = try await Executables.run("stratus", ["schema", "deploy", "--container", c, "--database-url", db.url])
        #expect(deployed.status == 0 && deployed.stdout.contains("add record type Note"), "\(deployed.stdout) \(deployed.stderr)")
        let exported = try await Executables.run("stratus", ["schema", "export", "--container", c, "--environment", "production", "--database-url", db.url])
        #expect(exported.stdout.contains("title STRING QUERYABLE SORTABLE") && exported.stdout.contains("body  STRING SEARCHABLE"), "\(exported.stdout)")
    }

    @Test func anUnreachableDatabaseIsAReadableError() async throws {
        let out = try await Executables.run("stratus", ["container", "list", "--database-url", "postgresql://stratus:hunter2@127.0.0.1:1/none"])
        #expect(out.status != 0 && out.stderr.contains("unavailable") && !out.stderr.contains("hunter2"), "\(out.stderr)")
    }
}
