import Foundation
import GRDB
import Testing
import StratusAPI
import StratusModel
@testable import StratusStore

/// A bulk import into an empty type builds the type's index structures (B-trees, full text, lists, locations)
/// after the load, and a load that died with them pending has them built when the environment is next opened:
/// every filter answers the same as after a record-by-record load.
@Suite struct BulkLoadTests {
    static func indexes(_ env: EnvironmentStore) throws -> Set<String> {
        Set(try env.core.sqlite!.gated.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 't*_f*_i'") })
    }

    static let queries: [(Query, Int)] = [
        (Query(recordType: "Item", filters: [QueryFilter(.field("n"), .equals, .int64(5))]), 31),
        (Query(recordType: "Item", filters: [QueryFilter(.field("body"), .containsAllTokens, .string("gamma"))]), 1_000),
        (Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("t7"))]), 300),
        (Query(recordType: "Item", filters: [QueryFilter(.field("place"), .near, .location(Location(latitude: 10, longitude: 10)), distance: 1_000)]), 300),
    ]

    static func answers(_ env: EnvironmentStore) throws -> [Int] {
        try queries.map { q, _ in
            var total = 0
            var query = q
            repeat {
                let page = try env.records.query(query, in: .publicDatabase)
                total += page.records.count
                guard let marker = page.continuationMarker else { break }
                query.continuationMarker = marker
            } while true
            return total
        }
    }

    @Test func indexesDroppedForALoadAreBuiltAfterItOrAtTheNextOpen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bulk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ContainerID("iCloud.com.example.Bulk")
        let file = dir.appendingPathComponent("items.ndjson")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let lines = (0..<3_000).map { i in
            let place = i % 10 == 0 ? #"{"latitude":10.001,"longitude":10.001}"# : #"{"latitude":-40,"longitude":120}"#
            return #"{"recordName":"i\#(i)","recordType":"Item","fields":{"n":{"value":\#(i % 97)},"body":{"value":"alpha \#(i % 3 == 0 ? "gamma" : "beta") delta"},"tags":{"value":["t\#(i % 10)","all"]},"place":{"value":\#(place)}}}"#
        }
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        let expected = Self.queries.map(\.1)
        do {
            let store = try ServerStore(dataDirectory: dir.appendingPathComponent("data"), durability: .relaxed)
            try store.createContainer(container)
            try store.lifecycle.importSchema(try SchemaParser.parse("""
                DEFINE SCHEMA RECORD TYPE Item (n INT64 QUERYABLE SORTABLE, body STRING SEARCHABLE, tags LIST<STRING> QUERYABLE, place LOCATION QUERYABLE)
                """), into: container)
            let env = try store.environment(container, .development)
            let declared = try Self.indexes(env)
            #expect(!declared.isEmpty)
            #expect(try env.records.typeIsEmpty("Item"))
            #expect(try RecordImporter(env: env, database: .publicDatabase, batchSize: 1_000).run(file) == 3_000)
            #expect(try Self.indexes(env) == declared)
            #expect(try !env.records.typeIsEmpty("Item"))
            #expect(try Self.answers(env) == expected)

            // A load that dies after deferring them: records written meanwhile are found once the next opening has built them.
            #expect(try env.records.deferIndexes(of: "Item"))
            #expect(try Self.indexes(env).isEmpty)
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "late", recordType: "Item", fields: [
                "n": .int64(5), "body": .string("gamma"), "tags": .list(.string, [.string("t7")]), "place": .location(Location(latitude: 10, longitude: 10)),
            ]))], in: .publicDatabase, actor: .system)
        }
        let reopened = try ServerStore(dataDirectory: dir.appendingPathComponent("data"), durability: .relaxed).environment(container, .development)
        #expect(try !Self.indexes(reopened).isEmpty)
        #expect(try Self.answers(reopened) == expected.map { $0 + 1 })
    }
}
