import Foundation
import GRDB
import Testing
import StratusAPI
import StratusModel
@testable import StratusStore

/// A bulk import into an empty type builds the type's field indexes after the load, and a load that died with
/// its indexes dropped has them built when the environment is next opened; queries answer the same throughout.
@Suite struct BulkLoadTests {
    static func indexes(_ env: EnvironmentStore) throws -> Set<String> {
        Set(try env.pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 't*_f*_i'") })
    }

    @Test func indexesDroppedForALoadAreBuiltAfterItOrAtTheNextOpen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ContainerID("iCloud.com.example.Bulk")
        let file = dir.appendingPathComponent("items.ndjson")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let lines = (0..<3_000).map { #"{"recordName":"i\#($0)","recordType":"Item","fields":{"n":{"value":\#($0 % 97)},"t":{"value":"w\#($0 % 13)"}}}"# }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        do {
            let store = try RecordStore(dataDirectory: dir.appendingPathComponent("data"), durability: .relaxed)
            try store.createContainer(container)
            try store.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Item (n INT64 QUERYABLE SORTABLE, t STRING QUERYABLE)"), into: container)
            let env = try store.environment(container, .development)
            let declared = try Self.indexes(env)
            #expect(declared.count == 2)
            #expect(try env.typeIsEmpty("Item"))
            #expect(try RecordImporter(env: env, database: .publicDatabase, batchSize: 1_000).run(file) == 3_000)
            #expect(try Self.indexes(env) == declared)
            #expect(try !env.typeIsEmpty("Item"))
            let q = Query(recordType: "Item", filters: [QueryFilter(.field("n"), .equals, .int64(5))])
            let page = try env.query(q, in: .publicDatabase)
            #expect(page.records.count == 31)

            // A load that dies after dropping them: the next opening builds them before anything is served.
            #expect(try env.deferIndexes(of: "Item"))
            #expect(try Self.indexes(env).isEmpty)
            #expect(try env.query(q, in: .publicDatabase).records.count == 31, "the same answers without the indexes")
        }
        let reopened = try RecordStore(dataDirectory: dir.appendingPathComponent("data"), durability: .relaxed).environment(container, .development)
        #expect(try Self.indexes(reopened).count == 2)
    }
}
