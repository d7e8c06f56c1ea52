import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The Import page loads an uploaded NDJSON file with the CLI's importer in the background; the import's page
/// follows its progress and then shows every record in, or a refused line named with its number and error while
/// the batches before it stay; CSRF-guarded and audited.
@Suite struct ConsoleImportTests {
    /// Uploads a file and follows the import's page until it ends: the page's HTML and its JSON.
    static func importing(_ s: ConsoleSession, _ base: String, _ items: [(String, String)], _ file: (name: String, filename: String, data: Data)) async throws -> (ConsoleFixture.Page, [String: Any], String, sawProgress: Bool) {
        let started = try await s.upload(base, items, file: file)
        #expect(started.status == 303, "\(started.html.suffix(1000))")
        let location = try #require(started.headers["location"] ?? started.headers["Location"])
        #expect(location.hasPrefix(base + "/"))
        var sawProgress = false
        for _ in 0..<1200 {
            let json = try await s.get(location, accept: "application/json")
            let state = try #require(try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: Any])
            if state["state"] as? String != "running" { return (try await s.get(location), state, location, sawProgress) }
            let page = try await s.get(location)
            if page.html.contains("<progress") {
                #expect(page.html.contains(#"<meta http-equiv="refresh" content="1">"#) && page.html.contains("records written"))
                sawProgress = true
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the import did not end")
        return (try await s.get(location), [:], location, sawProgress)
    }

    @Test func anUploadedFileIsImportedOrStopsAtItsBadLine() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Import")
        try await offPool { try f.app.store.createContainer(container) }
        let base = "/console/\(container.rawValue)/development/import"
        #expect(try await s.get(base).html.contains("Import records"))
        let good = (0..<250).map { #"{"recordName":"i\#($0)","recordType":"Item","fields":{"n":{"value":\#($0)},"t":{"value":"<b>\#($0)</b>"}}}"# }
        let file = (name: "file", filename: "items.ndjson", data: Data(good.joined(separator: "\n").utf8))
        #expect(try await s.upload(base, [("mode", "create")], file: file, csrf: false).status == 403)
        let (done, doneJSON, doneLocation, _) = try await Self.importing(s, base, [("mode", "create"), ("database", "public")], file)
        #expect(done.status == 200 && done.html.contains("Imported 250 records") && !done.html.contains("http-equiv"), "\(done.html.suffix(1500))")
        #expect(doneJSON["state"] as? String == "done" && doneJSON["records"] as? Int == 250)
        let env = try f.app.store.environment(container, .development)
        #expect(try env.records.recordCount() == 250)
        // Again with create: the first line's record exists, nothing of that batch is written, the page says where.
        let (again, _, _, _) = try await Self.importing(s, base, [("mode", "create")], file)
        #expect(again.html.contains("Line 1:") && again.html.contains("lines up to 0 are imported"), "\(again.html.suffix(1500))")
        var lines = good.map { $0.replacingOccurrences(of: "\"i", with: "\"j") }
        lines[220] = "{not json"
        let (broken, brokenJSON, _, _) = try await Self.importing(s, base, [("mode", "create")], (name: "file", filename: "broken.ndjson", data: Data(lines.joined(separator: "\n").utf8)))
        #expect(broken.html.contains("Line 221: the line is not JSON (BAD_REQUEST)") && broken.html.contains("lines up to 200"))
        #expect(brokenJSON["state"] as? String == "failed" && brokenJSON["line"] as? Int == 221 && brokenJSON["committedLines"] as? Int == 200)
        #expect(try env.records.recordCount() == 450)
        let (upsert, _, _, _) = try await Self.importing(s, base, [("mode", "upsert")], file)
        #expect(upsert.html.contains("Imported 250 records"))
        #expect(try await s.get("/console/audit").html.contains("import records"))
        // Another environment's URL, or an id that is no import, finds nothing.
        let job = String(doneLocation.split(separator: "/").last!)
        #expect(try await s.get("/console/\(container.rawValue)/production/import/\(job)").status == 404)
        #expect(try await s.get("\(base)/0123456789abcdef").status == 404)
        let anonymous = try await f.request("\(base)/\(job)")
        #expect(anonymous.status == 303 && !anonymous.html.contains("Imported"))
        // A larger file: its page shows the progress while it runs.
        let many = (0..<10_000).map { #"{"recordName":"m\#($0)","recordType":"Item","fields":{"n":{"value":\#($0)}}}"# }
        let (big, _, _, sawProgress) = try await Self.importing(s, base, [("mode", "create")], (name: "file", filename: "many.ndjson", data: Data(many.joined(separator: "\n").utf8)))
        #expect(big.html.contains("Imported 10000 records") && sawProgress)
        let bad = try await s.upload(base, [("mode", "sideways")], file: file)
        #expect(bad.status == 400 && bad.html.contains("Choose create or upsert"))
    }
}
