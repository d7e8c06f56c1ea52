import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Queries on the `parent` and `share` system fields, as sync libraries cascade a parent's deletion by finding its
/// children: EQUALS, IN and their negations on a record ID or a reference, on both engines, and in Production only
/// where the schema makes the field QUERYABLE.
@Suite struct LinkQueryTests {
    @Test(arguments: Backend.allCases) func childrenAndSharedRootsAreFoundByQuery(_ backend: Backend) async throws {
        guard let (store, cleanup) = try await backend.makeStore() else { return }
        defer { cleanup() }
        try await offPool {
            let c = try ContainerID("iCloud.com.example.Links")
            try store.createContainer(c)
            let env = try store.environment(c, .development)
            let owner = "_" + String(repeating: "ab", count: 16)
            let db = DatabaseID.privateDatabase(of: owner), zone = ZoneID(zoneName: "Lists")
            try env.zones.createZone(zone, in: db)
            func record(_ name: String, _ type: String = "Item", parent: String? = nil) -> RecordOperation {
                var r = StoredRecord(recordName: name, recordType: type, zoneID: zone, fields: ["title": .string(name)])
                r.parent = parent
                return RecordOperation(.create, r)
            }
            var share = RecordOperation(.create, StoredRecord(recordName: "share-a", recordType: Share.recordType, zoneID: zone))
            share.share = ShareRequest(forRecord: "list-a", participants: [])
            _ = try env.records.modify([record("list-a", "List"), record("list-b", "List"), record("item-1", parent: "list-a"), record("item-2", parent: "list-a"),
                                        record("item-3", parent: "list-b"), record("item-4"), share], in: db, zoneID: zone, actor: RequestActor(userRecordName: owner))
            func names(_ type: String, _ field: SystemField, _ comparator: FilterComparator, _ value: FieldValue) throws -> [String] {
                try env.records.query(Query(recordType: type, filters: [QueryFilter(.system(field), comparator, value)], zoneID: zone), in: db).records.map(\.recordName).sorted()
            }
            let listA = FieldValue.reference(Reference(recordName: "list-a", zoneID: zone))
            #expect(try names("Item", .parent, .equals, listA) == ["item-1", "item-2"])
            #expect(try names("Item", .parent, .equals, .string("list-b")) == ["item-3"], "a record name is taken as a record ID")
            #expect(try names("Item", .parent, .in, .list(.reference, [listA, .reference(Reference(recordName: "list-b"))])) == ["item-1", "item-2", "item-3"])
            #expect(try names("Item", .parent, .notEquals, listA) == ["item-3", "item-4"])
            #expect(try names("Item", .parent, .notIn, .list(.reference, [listA, .reference(Reference(recordName: "list-b"))])) == ["item-4"])
            #expect(try names("Item", .parent, .equals, .string("nowhere")).isEmpty)
            if backend == .sqlite {
                // The children are found through the links' index, then each by name, not by reading the zone.
                let plan = try env.records.core.read { s, catalog in
                    var compiler = QueryCompiler(type: catalog.type(named: "Item")!, environment: .development, desiredKeys: nil)
                    compiler.zoneIDs = [1]
                    let compiled = try compiler.compile(Query(recordType: "Item", filters: [QueryFilter(.system(.parent), .equals, listA)], zoneID: zone),
                                                        zoneCondition: "t.zone_id = ?", zoneArguments: [.int64(1)], after: nil)
                    return try s.all("EXPLAIN QUERY PLAN " + compiled.sql, compiled.arguments) { $0.string(3) }
                }
                #expect(plan.contains { $0.contains("record_links_parent (zone_id=? AND parent=?)") }, "\(plan)")
                #expect(plan.contains { $0.hasPrefix("SEARCH t USING INDEX") && $0.contains("(zone_id=? AND record_name=?)") }, "\(plan)")
            }
            #expect(try names("List", .share, .equals, .reference(Reference(recordName: "share-a"))) == ["list-a"])
            #expect(try names("List", .share, .notEquals, .string("share-a")) == ["list-b"])
            // Beside an ordinary filter, and refused for what does not apply to a record.
            let both = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.system(.parent), .equals, listA), QueryFilter(.field("title"), .equals, .string("item-2"))],
                                                   zoneID: zone), in: db)
            #expect(both.records.map(\.recordName) == ["item-2"])
            expectError(.badRequest) { _ = try names("Item", .parent, .beginsWith, .string("list")) }
            // Production: only where the schema declares ___parent QUERYABLE.
            try store.lifecycle.deploy(c, by: "t")
            let prod = try store.environment(c, .production)
            try prod.zones.createZone(zone, in: db)
            _ = try prod.records.modify([record("list-a", "List"), record("item-1", parent: "list-a")], in: db, zoneID: zone, actor: RequestActor(userRecordName: owner))
            let refused = expectError(.badRequest) {
                _ = try prod.records.query(Query(recordType: "Item", filters: [QueryFilter(.system(.parent), .equals, listA)], zoneID: zone), in: db)
            }
            #expect(refused?.reason.contains("___parent") == true)
            try store.lifecycle.importSchema(try SchemaParser.parse("""
                DEFINE SCHEMA RECORD TYPE Item ( "___parent" REFERENCE QUERYABLE, title STRING QUERYABLE SEARCHABLE SORTABLE );
                RECORD TYPE List ( "___share" REFERENCE QUERYABLE, title STRING QUERYABLE SEARCHABLE SORTABLE );
                """), into: c)
            try store.lifecycle.deploy(c, by: "t")
            #expect(try prod.records.query(Query(recordType: "Item", filters: [QueryFilter(.system(.parent), .equals, listA)], zoneID: zone), in: db).records.map(\.recordName) == ["item-1"])
        }
    }
}
