import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The Import page loads an uploaded NDJSON file with the CLI's importer: every record in, or a refused line named
/// with its number and error while the batches before it stay; CSRF-guarded and audited.
@Suite struct ConsoleImportTests {
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
        let done = try await s.upload(base, [("mode", "create"), ("database", "public")], file: file)
        #expect(done.status == 200 && done.html.contains("Imported 250 records"), "\(done.html.suffix(1500))")
        let env = try f.app.store.environment(container, .development)
        #expect(try env.recordCount() == 250)
        // Again with create: the first line's record exists, nothing of that batch is written, the page says where.
        let again = try await s.upload(base, [("mode", "create")], file: file)
        #expect(again.status == 400 && again.html.contains("Line 1:") && again.html.contains("lines up to 0 are imported"), "\(again.html.suffix(1500))")
        var lines = good.map { $0.replacingOccurrences(of: "\"i", with: "\"j") }
        lines[220] = "{not json"
        let broken = try await s.upload(base, [("mode", "create")], file: (name: "file", filename: "broken.ndjson", data: Data(lines.joined(separator: "\n").utf8)))
        #expect(broken.status == 400 && broken.html.contains("Line 221: the line is not JSON (BAD_REQUEST)") && broken.html.contains("lines up to 200"))
        #expect(try env.recordCount() == 450)
        let upsert = try await s.upload(base, [("mode", "upsert")], file: file)
        #expect(upsert.html.contains("Imported 250 records"))
        #expect(try await s.get("/console/audit").html.contains("import records"))
    }
}
