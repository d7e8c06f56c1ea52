import Foundation
import Testing
import StratusModel
import StratusStore
import StratusTestSupport

/// A storage failure's own text (SQL, table names, file paths) never reaches a console page: every page goes through
/// the one redaction, which logs the detail under a uuid the page quotes. The failures are real: the tables a page
/// needs are renamed under the running server, as a damaged or foreign database would leave them.
@Suite struct ConsoleRedactionTests {
    static let leaks = DamagedTables.leaks
    static func renameTables(in file: URL, _ names: (String) -> Bool) throws { try DamagedTables.rename(in: file, names) }

    @Test func recordPagesShowNoStorageDetail() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Redacted")
        try f.app.store.createContainer(container)
        let env = try f.app.store.environment(container, .development)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "n1", recordType: "Note", fields: ["title": .string("kept")]))],
                           in: .publicDatabase, actor: .system)
        let dev = "/console/\(container.rawValue)/development"
        #expect(try await s.get("\(dev)/public/records?type=Note").html.contains("n1"))

        let file = f.data.appendingPathComponent("containers").appendingPathComponent(container.rawValue).appendingPathComponent("development.sqlite")
        try Self.renameTables(in: file) { $0 != "meta" }

        let list = try await s.get("\(dev)/public/records?type=Note")
        #expect(list.html.contains("quote"), "the page quotes the uuid the log has")
        for leak in Self.leaks { #expect(!list.html.contains(leak), "the records page shows \(leak)") }

        let created = try await s.post("\(dev)/public/new-record?type=Note", [("recordName", "n2"), ("title", "new")])
        #expect(created.html.contains("quote"))
        for leak in Self.leaks { #expect(!created.html.contains(leak), "the new-record page shows \(leak)") }
    }

    @Test func theSetupPageShowsNoStorageDetail() async throws {
        let f = try await ConsoleFixture()
        try Self.renameTables(in: f.data.appendingPathComponent("stratus.sqlite")) { $0.hasPrefix("admin") }
        let page = try await f.request("/console/setup", form: ["token": f.app.console.setupToken, "email": "admin@example.com", "password": "a long admin password"])
        #expect(page.status == 500 && page.html.contains("quote"))
        for leak in Self.leaks { #expect(!page.html.contains(leak), "the setup page shows \(leak)") }
    }
}
