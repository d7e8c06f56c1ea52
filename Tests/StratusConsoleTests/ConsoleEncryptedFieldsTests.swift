import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// ENCRYPTED fields in the console: never shown, never exported, kept by edits, and never indexed.
@Suite struct ConsoleEncryptedFieldsTests {
    @Test func encryptedValuesAreMarkedNotShownAndSurviveAnEdit() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Diary")
        try f.app.store.createContainer(container)
        _ = try f.app.store.lifecycle.importSchema(try SchemaParser.parse("""
            DEFINE SCHEMA
                RECORD TYPE Diary (
                    "___recordID" REFERENCE QUERYABLE,
                    title STRING QUERYABLE SORTABLE,
                    secret ENCRYPTED STRING,
                    GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
                );
            """), into: container)
        let env = try f.app.store.environment(container, .development)
        let ciphertext = "Y2lwaGVydGV4dCBvbmx5IHRoZSBhcHAgcmVhZHM="
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "d1", recordType: "Diary",
                                                                     fields: ["title": .string("Monday"), "secret": .string(ciphertext)]))],
                           in: .publicDatabase, actor: .system)
        let dev = "/console/\(container.rawValue)/development"
        let page = try await s.get("\(dev)/public/records/_defaultZone/d1")
        #expect(page.html.contains("encrypted") && !page.html.contains(ciphertext))
        let list = try await s.get("\(dev)/public/records?type=Diary&fields=title,secret")
        #expect(list.html.contains("Monday") && !list.html.contains(ciphertext))
        let json = try await s.get("\(dev)/public/records/_defaultZone/d1", accept: "application/json")
        #expect(!json.html.contains(ciphertext))
        let csv = try await s.get("\(dev)/public/records?type=Diary&format=csv&fields=title,secret")
        #expect(csv.html.contains("Monday") && !csv.html.contains(ciphertext))
        let export = try await s.get("\(dev)/public/records?type=Diary&format=json&all=1")
        #expect(export.html.contains("Monday") && !export.html.contains(ciphertext))

        // An edit of the other fields keeps the encrypted value as it was.
        let tag = try env.records.lookup(["d1"], in: .publicDatabase)[0].get().recordChangeTag ?? ""
        let saved = try await s.post("\(dev)/public/records/_defaultZone/d1", [("tag", tag), ("v:title", "Tuesday")])
        #expect(saved.status == 303)
        let after = try env.records.lookup(["d1"], in: .publicDatabase)[0].get()
        #expect(after.fields["title"] == .string("Tuesday") && after.fields["secret"] == .string(ciphertext))

        // The schema editor refuses an index on an encrypted field, and explains why.
        let refused = try await s.post("\(dev)/schema/Diary/fields", [("name", "pin"), ("type", "STRING"), ("encrypted", "on"), ("index", "QUERYABLE")])
        #expect(refused.status == 400 && refused.html.contains("encrypted field cannot be QUERYABLE"))
        let added = try await s.post("\(dev)/schema/Diary/fields", [("name", "pin"), ("type", "STRING"), ("encrypted", "on")])
        #expect(added.status == 303)
        #expect(try env.schema.current().recordType(named: "Diary")?.field(named: "pin")?.type.encrypted == true)
        let indexes = try await s.post("\(dev)/schema/Diary/indexes", [("index:title", "QUERYABLE"), ("index:secret", "SORTABLE")])
        #expect(indexes.status == 400 && indexes.html.contains("secret is encrypted"))
    }
}
