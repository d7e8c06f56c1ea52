import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// `stratus check` on a data directory: "ok" for the control data and each environment of a healthy store and exit 0;
/// a change log row removed behind the store's back is named, with exit 1, and so is a token of a container that is gone.
@Suite struct CheckCommandTests {
    @Test func aHealthyStoreIsOkAndABrokenChangeLogFailsTheCheck() async throws {
        let data = Executables.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let container = "iCloud.com.example.Check"
        try await Executables.offPool {
            let store = try ServerStore(dataDirectory: data)
            defer { store.close() }
            let id = try ContainerID(container)
            try store.createContainer(id)
            let env = try store.environment(id, .development)
            _ = try env.records.modify((0..<10).map { RecordOperation(.create, StoredRecord(recordName: "r\($0)", recordType: "Note", fields: ["title": .string("t\($0)")])) },
                                       in: .publicDatabase, actor: .system)
        }
        let healthy = try await Executables.run("stratus", ["check", "--data", data.path])
        #expect(healthy.status == 0, "\(healthy.stdout)\(healthy.stderr)")
        #expect(healthy.stdout.contains("\(container) development: ok") && healthy.stdout.contains("\(container) production: ok"), "\(healthy.stdout)\(healthy.stderr)")
        #expect(healthy.stdout.contains("control data: ok"), "\(healthy.stdout)")

        let file = data.appendingPathComponent("containers/\(container)/development.sqlite")
        try DamagedTables.execute(in: file, "DELETE FROM record_log WHERE record_name = 'r4'")
        let broken = try await Executables.run("stratus", ["check", "--data", data.path, "--container", container])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("record type Note: 1 records have no live entry in the change log"), "\(broken.stdout)\(broken.stderr)")
        #expect(broken.stdout.contains("\(container) production: ok"))

        try DamagedTables.execute(in: data.appendingPathComponent("stratus.sqlite"), """
            INSERT INTO api_tokens(container, environment, name, token_hash, allowed_origins, created_at) VALUES ('iCloud.com.example.Gone', 'development', 'left over', 'h', '[]', 0)
            """)
        let orphaned = try await Executables.run("stratus", ["check", "--data", data.path])
        #expect(orphaned.status == 1)
        #expect(orphaned.stdout.contains("control data: 1 API token of container iCloud.com.example.Gone, which does not exist"), "\(orphaned.stdout)\(orphaned.stderr)")
    }
}
