import Foundation
import Testing
import StratusAPI
import StratusModel
import StratusStore

/// What a bulk import keeps of the modify path's guarantees (issue 29): imported records notify their subscribers
/// and appear in change feeds, a batch that fails in the middle leaves nothing of itself and the import resumes
/// after the last batch written, and Development's schema grows from the imported lines as it does from writes.
@Suite struct ImportGuaranteesTests {
    static let alice = "_" + String(repeating: "c3", count: 16)

    final class Scratch {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("import-guarantees-\(UUID().uuidString)")
        let container = try! ContainerID("iCloud.com.example.Imports")
        let store: ServerStore

        init() throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            store = try ServerStore(dataDirectory: dir.appendingPathComponent("data"), durability: .relaxed)
            try store.createContainer(container)
        }

        func file(_ lines: [String]) throws -> URL {
            let url = dir.appendingPathComponent("lines-\(UUID().uuidString).ndjson")
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            return url
        }

        deinit { try? FileManager.default.removeItem(at: dir) }
    }

    static func line(_ i: Int, extra: String = "") -> String {
        #"{"recordName":"i\#(i)","recordType":"Item","fields":{"n":{"value":\#(i)},"title":{"value":"item \#(i)"}\#(extra)}}"#
    }

    /// Every record name in a zone's change feed from the start, page after page (a page holds at most 200).
    static func changedNames(_ env: EnvironmentStore, _ db: DatabaseID, _ zone: ZoneID) throws -> [String] {
        var names: [String] = [], token: String? = nil
        while true {
            let page = try env.zones.zoneChanges(in: db, zoneID: zone, since: token, resultsLimit: 100)
            names += page.changed.map(\.recordName)
            token = page.syncToken
            if !page.moreComing { return names }
        }
    }

    @Test func importedRecordsNotifyTheirSubscribersAndAppearInChangeFeeds() throws {
        let s = try Scratch()
        let env = try s.store.environment(s.container, .development)
        let db = DatabaseID.privateDatabase(of: Self.alice)
        let zone = ZoneID(zoneName: "Imported", ownerRecordName: Self.alice)
        // Alice's device follows her whole database, and new Items in it.
        try env.subscriptions.saveSubscription("new-items", document: #"{"subscriptionType":"query","query":{"recordType":"Item"},"firesOn":["create"]}"#,
                                               in: .private, owner: Self.alice)
        try env.subscriptions.saveSubscription("everything", document: #"{"subscriptionType":"database"}"#, in: .private, owner: Self.alice)
        let before = try env.zones.databaseChanges(in: db, since: nil).syncToken

        let written = try RecordImporter(env: env, database: db, zone: "Imported", batchSize: 100).run(try s.file((0..<250).map { Self.line($0) }))
        #expect(written == 250)

        // The change feeds: the zone is among the database's changes since before the import, and its records
        // are all in the zone's feed, page after page.
        #expect(try env.zones.databaseChanges(in: db, since: before).changedZones.map(\.zoneID.zoneName) == ["Imported"])
        let names = try Self.changedNames(env, db, zone)
        #expect(Set(names) == Set((0..<250).map { "i\($0)" }) && names.count == 250)
        #expect(try env.records.lookup(["i249"], in: db, zoneID: zone).first.flatMap { try? $0.get().fields["title"] } == .string("item 249"))

        // The notifications: one per new Item for the query subscription, and the database subscription told.
        env.notifications.deliverHandedOff()
        let logged = try env.notifications.entries(for: Self.alice, after: 0, limit: 1_000)
        let created = logged.filter { $0.subscriptionID == "new-items" }
        #expect(created.count == 250 && Set(created.compactMap(\.recordName)) == Set(names) && created.allSatisfy { $0.reason == 1 })
        #expect(logged.contains { $0.subscriptionID == "everything" })
    }

    @Test func aBatchThatFailsInTheMiddleLeavesNothingOfItselfAndTheImportResumes() throws {
        let s = try Scratch()
        let env = try s.store.environment(s.container, .development)
        var lines = (0..<300).map { Self.line($0) }
        // Line 151 is in the second batch of 100: a value of the wrong type for a field the first batch made INT64.
        lines[150] = #"{"recordName":"i150","recordType":"Item","fields":{"n":{"value":"text","type":"STRING"}}}"#
        var committed: [Int] = []
        #expect {
            try RecordImporter(env: env, database: .publicDatabase, batchSize: 100).run(try s.file(lines)) { committed.append($0) }
        } throws: { e in
            guard let e = e as? RecordImporter.LineError else { return false }
            return e.line == 151 && e.error.code == .badRequest
        }
        #expect(committed == [100], "only the first batch was committed")
        #expect(try env.records.recordCount() == 100)
        #expect(try env.records.lookup(["i100", "i149"], in: .publicDatabase).allSatisfy { if case .failure(let e) = $0 { e.code == .notFound } else { false } },
                "nothing of the failed batch, not even the lines before the bad one")
        // Corrected, the import goes on after the last committed line, and every record is there once.
        lines[150] = Self.line(150)
        let resumed = try RecordImporter(env: env, database: .publicDatabase, batchSize: 100).run(try s.file(lines), skipLines: committed.last!)
        #expect(resumed == 200)
        #expect(try env.records.recordCount() == 300)
        let names = try Self.changedNames(env, .publicDatabase, .defaultZone)
        #expect(names.count == 300 && Set(names).count == 300)
    }

    @Test func developmentGrowsItsSchemaFromImportedLinesAndProductionRefusesWhatItLacks() throws {
        let s = try Scratch()
        let dev = try s.store.environment(s.container, .development)
        // A new type from the first batch; a field first seen in a later batch (line 151) is added then.
        var lines = (0..<200).map { Self.line($0) }
        lines[150] = Self.line(150, extra: #","place":{"value":{"latitude":48.85,"longitude":2.35}},"tags":{"value":["a","b"]}"#)
        #expect(try RecordImporter(env: dev, database: .publicDatabase, batchSize: 100).run(try s.file(lines)) == 200)
        let item = try #require(try dev.schema.current().recordTypes.first { $0.name == "Item" })
        let types = Dictionary(uniqueKeysWithValues: item.fields.map { ($0.name, $0.type.description) })
        #expect(types == ["n": "INT64", "title": "STRING", "place": "LOCATION", "tags": "LIST<STRING>"])
        // The fields made on write are queryable as CloudKit's just-in-time schema makes them, over imported records too.
        let near = try dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("place"), .near, .location(Location(latitude: 48.85, longitude: 2.35)), distance: 1_000)]),
                                 in: .publicDatabase)
        #expect(near.records.map(\.recordName) == ["i150"])
        let tagged = try dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("b"))]), in: .publicDatabase)
        #expect(tagged.records.map(\.recordName) == ["i150"])

        // Production has only what was deployed: a line with a field it lacks stops the import at that line.
        try s.store.lifecycle.deploy(s.container, by: "test")
        let prod = try s.store.environment(s.container, .production)
        var later = (0..<50).map { Self.line($0) }
        later[20] = Self.line(20, extra: #","colour":{"value":"red"}"#)
        #expect {
            try RecordImporter(env: prod, database: .publicDatabase, batchSize: 100).run(try s.file(later))
        } throws: { e in
            guard let e = e as? RecordImporter.LineError else { return false }
            return e.line == 21 && e.error.code == .badRequest && e.error.reason.contains("colour")
        }
        #expect(try prod.records.recordCount() == 0)
    }
}
