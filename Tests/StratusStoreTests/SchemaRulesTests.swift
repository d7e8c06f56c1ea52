import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

@Suite struct SchemaRulesTests {
    @Test func developmentCreatesTypesAndFieldsJustInTime() throws {
        let f = try Fixture()
        _ = try f.save([StoredRecord(recordName: "p", recordType: "Place", fields: [
            "name": .string("Café"), "visits": .int64(3), "rating": .double(4.5), "at": .timestamp(millis: 1_700_000_000_000),
            "where": .location(Location(latitude: 48.85, longitude: 2.35)), "tags": .list(.string, [.string("a")]),
            "photo": .bytes(Data([1, 2, 3])),
        ])])
        let type = try #require(try f.dev.schema.current().recordType(named: "Place"))
        #expect(type.field(named: "name")?.indexes == [.queryable, .sortable, .searchable])
        #expect(type.field(named: "visits")?.indexes == [.queryable, .sortable])
        #expect(type.field(named: "tags")?.type == .list(.string))
        #expect(type.field(named: "tags")?.indexes == .queryable)
        #expect(type.field(named: "photo")?.indexes == [])
        #expect(type.grants == SecurityRole.defaultGrants)
        // Queryable at once.
        let q = Query(recordType: "Place", filters: [QueryFilter(.field("name"), .equals, .string("Café"))])
        #expect(try f.dev.records.query(q, in: f.pub).records.map(\.recordName) == ["p"])
    }

    @Test func aRefusedOperationLeavesNoSchemaBehind() throws {
        let f = try Fixture()
        let r = try f.one(.create, StoredRecord(recordName: "x", recordType: "Draft", fields: [
            "title": .string("t"), "up": .reference(Reference(recordName: "missing", action: .validate)),
        ]))
        #expect(r.code == .validatingReferenceError)
        #expect(try f.dev.schema.current().recordType(named: "Draft") == nil)
        let big = try f.one(.create, note("y", ["newField": .string("a"), "data": .bytes(Data(count: 1_100_000))]))
        #expect(big.code == .limitExceeded)
        #expect(try f.dev.schema.current().recordType(named: "Note") == nil)
    }

    @Test func aFieldTypeNeverChanges() throws {
        let f = try Fixture()
        _ = try f.one(.create, note("a", ["count": .int64(1)]))
        let r = try f.one(.create, note("b", ["count": .string("one")]))
        #expect(r.code == .badRequest)
        #expect(r.error?.reason.contains("count") == true)
        // INT64 widens into a DOUBLE field, as a client without types would send it.
        _ = try f.one(.create, note("c", ["ratio": .double(0.5)]))
        let widened = try #require(try f.one(.create, note("d", ["ratio": .int64(2)])).record)
        #expect(widened.fields["ratio"] == .double(2))
    }

    @Test func productionRejectsUnknownTypesAndFieldsByName() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE );")
        try f.store.lifecycle.deploy(f.container, by: "test")
        let unknownType = try f.one(.create, StoredRecord(recordName: "x", recordType: "Secret"), in: f.prod)
        #expect(unknownType.code == .badRequest)
        #expect(unknownType.error?.reason.contains("'Secret'") == true)
        let unknownField = try f.one(.create, note("x", ["body": .string("hi")]), in: f.prod)
        #expect(unknownField.code == .badRequest)
        #expect(unknownField.error?.reason.contains("'body'") == true)
        #expect(try f.one(.create, note("x", ["title": .string("ok")]), in: f.prod).error == nil)
        #expect(try f.prod.schema.current().recordType(named: "Note")?.fields.map(\.name) == ["title"])
        #expect(try f.prod.schema.current().recordType(named: "Secret") == nil)
    }

    @Test func productionQueriesNeedIndexes() throws {
        let f = try Fixture(schema: """
            DEFINE SCHEMA RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, body STRING, n INT64 SORTABLE,
            tags LIST<STRING> );
            """)
        try f.store.lifecycle.deploy(f.container, by: "test")
        _ = try f.save([note("a", ["title": .string("t"), "body": .string("b"), "n": .int64(1)])], in: f.prod)
        #expect(try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("title"), .equals, .string("t"))]), in: f.pub).records.count == 1)
        let e = expectError(.badRequest) {
            try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("body"), .equals, .string("b"))]), in: f.pub)
        }
        #expect(e?.reason.contains("QUERYABLE index on 'body'") == true)
        let s = expectError(.badRequest) { try f.prod.records.query(Query(recordType: "Note", sorts: [QuerySort(.field("title"))]), in: f.pub) }
        #expect(s?.reason.contains("SORTABLE") == true)
        expectError(.badRequest) { try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("title"), .containsAllTokens, .string("t"))]), in: f.pub) }
        expectError(.badRequest) { try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("tags"), .listContains, .string("t"))]), in: f.pub) }
        expectError(.badRequest) {
            try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.system(.createdTimestamp), .greaterThan, .timestamp(millis: 0))]), in: f.pub)
        }
        #expect(try f.prod.records.query(Query(recordType: "Note", sorts: [QuerySort(.field("n"), ascending: false)]), in: f.pub).records.count == 1)
        // Development is lenient: unindexed fields are scanned.
        _ = try f.save([note("a", ["body": .string("b")])])
        #expect(try f.dev.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("body"), .equals, .string("b"))]), in: f.pub).records.count == 1)
    }

    @Test func filterlessProductionQueryNeedsRecordNameIndex() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING );")
        try f.store.lifecycle.deploy(f.container, by: "test")
        let e = expectError(.badRequest) { try f.prod.records.query(Query(recordType: "Note"), in: f.pub) }
        #expect(e?.reason.contains("___recordID") == true)
    }

    @Test func referencesValidateAndCascade() throws {
        let f = try Fixture()
        _ = try f.save([note("parent")])
        let bad = try f.one(.create, note("orphan", ["up": .reference(Reference(recordName: "nobody", action: .validate))]))
        #expect(bad.code == .validatingReferenceError)
        _ = try f.save([
            note("child", ["up": .reference(Reference(recordName: "parent", action: .deleteSelf))]),
            note("grandchild", ["up": .reference(Reference(recordName: "child", action: .deleteSelf))]),
            note("listed", ["ups": .list(.reference, [.reference(Reference(recordName: "parent", action: .deleteSelf))])]),
            note("weak", ["up": .reference(Reference(recordName: "parent", action: .none))]),
            note("valid", ["up": .reference(Reference(recordName: "parent", action: .validate))]),
        ])
        _ = try f.one(.forceDelete, note("parent"))
        let left = try f.dev.records.lookup(["child", "grandchild", "listed", "weak", "valid"], in: f.pub).map { (try? $0.get())?.recordName }
        #expect(left == [nil, nil, nil, "weak", "valid"])
        // The cascade shows in the change feed as deletions.
        let changes = try f.dev.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: nil)
        #expect(Set(changes.deleted) == ["parent", "child", "grandchild", "listed"])
    }

    @Test func changingAReferenceMovesTheCascade() throws {
        let f = try Fixture()
        _ = try f.save([note("p1"), note("p2")])
        let c = try f.save([note("c", ["up": .reference(Reference(recordName: "p1", action: .deleteSelf))])])[0]
        _ = try f.one(.update, note("c", ["up": .reference(Reference(recordName: "p2", action: .deleteSelf))], tag: c.recordChangeTag))
        _ = try f.one(.forceDelete, note("p1"))
        #expect((try? f.dev.records.lookup(["c"], in: f.pub)[0].get()) != nil)
        _ = try f.one(.forceDelete, note("p2"))
        #expect((try? f.dev.records.lookup(["c"], in: f.pub)[0].get()) == nil)
    }
}
