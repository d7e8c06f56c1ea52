import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The records page's export streams every match, page after page, with no cap.
@Suite struct ConsoleExportTests {
    @Test func exportsStreamEveryRecordAcrossPages() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Export")
        let env = try await offPool { () -> EnvironmentStore in
            try f.app.store.createContainer(container)
            let env = try f.app.store.environment(container, .development)
            for chunk in stride(from: 0, to: 650, by: 200) {
                _ = try env.records.modify((chunk..<min(chunk + 200, 650)).map { RecordOperation(.create, StoredRecord(recordName: "e\($0)", recordType: "Row", fields: ["n": .int64(Int64($0)), "t": .string("a, \"b\"")])) },
                                   in: .publicDatabase, actor: RequestActor(userRecordName: "_admin"))
            }
            return env
        }
        #expect(try env.records.recordCount() == 650)
        let base = "/console/\(container.rawValue)/development/public/records?type=Row&sort=n"
        let json = try await s.get(base + "&format=json&all=1")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: Any])
        let records = try #require(decoded["records"] as? [[String: Any]])
        #expect(records.count == 650 && records.first?["recordName"] as? String == "e0" && records.last?["recordName"] as? String == "e649")
        #expect(json.headers["content-disposition"]?.contains("Row-development.json") == true)
        let csv = try await s.get(base + "&format=csv&fields=n,t")
        let lines = csv.html.split(separator: "\r\n")
        #expect(lines.count == 651 && lines[0] == "recordName,recordChangeTag,modified,n,t" && lines[1].hasSuffix(",0,\"a, \"\"b\"\"\""), "\(lines.prefix(2))")
    }
}
