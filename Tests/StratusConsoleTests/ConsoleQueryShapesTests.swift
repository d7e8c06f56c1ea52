import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The console's Query shapes page lists the shapes queries had, with their counts and the index serving them.
@Suite struct ConsoleQueryShapesTests {
    @Test func theRecordsPagesQueriesShowUpAsShapes() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Shapes")
        try f.app.store.createContainer(container)
        let env = try f.app.store.environment(container, .development)
        _ = try env.records.modify((0..<50).map { RecordOperation(.create, StoredRecord(recordName: "n\($0)", recordType: "Note", fields: ["size": .int64(Int64($0)), "title": .string("<b>t\($0 % 3)</b>")])) },
                           in: .publicDatabase, actor: RequestActor(userRecordName: "_admin"))
        let base = "/console/\(container.rawValue)/development"
        #expect(try await s.get("\(base)/query-shapes").html.contains("No queries have run"))
        for _ in 0..<3 { #expect(try await s.get("\(base)/public/records?type=Note&filter=title%20EQUALS%20%3Cb%3Et1%3C%2Fb%3E&sort=-size").status == 200) }
        let page = try await s.get("\(base)/query-shapes")
        #expect(page.status == 200 && page.html.contains("Note: title = · sort -size") && page.html.contains("<td>3</td>"), "\(page.html.suffix(1500))")
        #expect(page.html.contains("USING INDEX"), "the plan names the index SQLite uses")
        let json = try await s.get("\(base)/query-shapes", accept: "application/json")
        #expect(json.html.contains("\"calls\":3"))
        // Ask for an index now (CSRF-guarded, audited); the records page then says it serves the query; pin, drop.
        #expect(try await s.post("\(base)/query-shapes/build", [("shape", "Note: title = · sort -size")], csrf: false).status == 403)
        #expect(try await s.post("\(base)/query-shapes/build", [("shape", "Note: nonsense")]).status == 404)
        #expect(try await s.post("\(base)/query-shapes/build", [("shape", "Note: title = · sort -size")]).status == 303)
        let name = try #require(try env.queryShapes.autoIndexes().first?.name)
        // It builds in the background; queries use it once it is complete.
        for _ in 0..<200 where try env.queryShapes.autoIndexes().first?.isReady != true { try await Task.sleep(for: .milliseconds(50)) }
        #expect(try env.queryShapes.autoIndexes().first?.isReady == true)
        let records = try await s.get("\(base)/public/records?type=Note&filter=title%20EQUALS%20%3Cb%3Et1%3C%2Fb%3E&sort=-size")
        #expect(records.html.contains("Served by <code class=\"served-by\">\(name)</code>"), "\(records.html.prefix(3000))")
        let listed = try await s.get("\(base)/query-shapes")
        #expect(listed.html.contains("(automatic)") && listed.html.contains(name) && listed.html.contains("<td>ready</td>"))
        #expect(try await s.post("\(base)/query-shapes/indexes/\(name)/unpin", []).status == 303)
        #expect(try env.queryShapes.autoIndexes().first?.pinned == false)
        #expect(try await s.post("\(base)/query-shapes/indexes/\(name)/drop", []).status == 303)
        #expect(try env.queryShapes.autoIndexes().isEmpty)
        #expect(try await s.get("/console/audit").html.contains("build index"))
    }
}
