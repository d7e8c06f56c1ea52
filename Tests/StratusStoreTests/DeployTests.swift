import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

@Suite struct DeployTests {
    @Test func deployCopiesSchemaNotRecordsAndKeepsHistory() throws {
        let f = try Fixture()
        _ = try f.save([note("n", ["title": .string("hello")])])
        let plan = try f.store.lifecycle.deployPlan(f.container)
        #expect(plan.changes.map(\.description) == ["add record type Note (1 field)"])
        #expect(plan.refusals.isEmpty)
        try f.store.lifecycle.deploy(f.container, by: "ada@example.com")
        #expect(try f.prod.schema.current().recordType(named: "Note")?.field(named: "title")?.indexes == [.queryable, .sortable, .searchable])
        #expect(try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("title"), .equals, .string("hello"))]), in: f.pub).records.isEmpty)
        let history = try f.prod.schema.deployments()
        #expect(history.count == 1 && history[0].deployedBy == "ada@example.com")
        #expect(history[0].changes == ["add record type Note (1 field)"])
        #expect(try f.store.lifecycle.deployPlan(f.container).isEmpty)
    }

    @Test func laterDeploysMergeAdditiveChanges() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE, GRANT READ TO \"_world\" );")
        try f.store.lifecycle.deploy(f.container, by: "t")
        try f.store.lifecycle.importSchema(try SchemaParser.parse("""
            DEFINE SCHEMA CREATE ROLE Editor;
            RECORD TYPE Note ( title STRING QUERYABLE SORTABLE, body STRING SEARCHABLE, GRANT READ TO "_world", GRANT WRITE TO Editor );
            """), into: f.container)
        let plan = try f.store.lifecycle.deployPlan(f.container)
        #expect(Set(plan.changes.map(\.description)) == [
            "add role Editor", "add field Note.body STRING SEARCHABLE",
            "change indexes of Note.title from [QUERYABLE] to [QUERYABLE SORTABLE]",
            "change grants of Editor on Note from [] to [WRITE]",
        ])
        _ = try f.save([note("p", ["title": .string("t")])], in: f.prod)
        #expect(try f.one(.forceUpdate, note("p", ["body": .string("full text here")]), in: f.prod).code == .badRequest)
        try f.store.lifecycle.deploy(f.container, by: "t")
        _ = try f.save([note("p", ["body": .string("full text here")])], in: f.prod, op: .forceUpdate)
        let found = try f.prod.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("body"), .containsAllTokens, .string("text"))]), in: f.pub)
        #expect(found.records.map(\.recordName) == ["p"])
        let prod = try f.prod.schema.current()
        #expect(prod.roles == ["Editor"])
        #expect(prod.recordType(named: "Note")?.grants["Editor"] == .write)
    }

    @Test func deployRefusesRemovalsAndTypeChanges() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING, n INT64 );")
        try f.store.lifecycle.deploy(f.container, by: "t")
        // The import itself refuses to lose Production's field.
        let e = expectError(.badRequest) { try f.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Note ( title STRING );"), into: f.container) }
        #expect(e?.reason.contains("Note.n exists in Production") == true)
        expectError(.badRequest) { try f.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Note ( title STRING, n STRING );"), into: f.container) }
        expectError(.badRequest) { try f.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Other ( x STRING );"), into: f.container) }
        // Nothing changed in Development.
        #expect(try f.dev.schema.current().recordType(named: "Note")?.fields.map(\.name) == ["title", "n"])
        // Production diverging from Development is refused at deploy.
        try f.prod.schema.applySchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Note ( title STRING, n INT64, extra STRING );"), protecting: nil)
        let plan = try f.store.lifecycle.deployPlan(f.container)
        #expect(plan.refusals == ["field Note.extra exists in Production and cannot be removed"])
        expectError(.badRequest) { try f.store.lifecycle.deploy(f.container, by: "t") }
        #expect(try f.prod.schema.deployments().count == 1)
    }

    @Test func developmentOnlyFieldsCanBeDropped() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING );")
        try f.store.lifecycle.deploy(f.container, by: "t")
        _ = try f.save([note("a", ["title": .string("x"), "draft": .string("y"), "tags": .list(.string, [.string("q")])])])
        try f.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Note ( title STRING );"), into: f.container)
        #expect(try f.dev.records.lookup(["a"], in: f.pub)[0].get().fields == ["title": .string("x")])
    }

    @Test func indexesAddedLaterCoverExistingRecords() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( body STRING, tags LIST<STRING>, at LOCATION );")
        _ = try f.save([note("a", ["body": .string("hello world"), "tags": .list(.string, [.string("x")]),
                                   "at": .location(Location(latitude: 10, longitude: 10))])])
        try f.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA RECORD TYPE Note ( body STRING SEARCHABLE, tags LIST<STRING> QUERYABLE, at LOCATION QUERYABLE );"), into: f.container)
        try f.store.lifecycle.deploy(f.container, by: "t")
        for filter in [QueryFilter(.field("body"), .containsAllTokens, .string("world")), QueryFilter(.field("tags"), .listContains, .string("x")),
                       QueryFilter(.field("at"), .near, .location(Location(latitude: 10, longitude: 10)), distance: 10)] {
            #expect(try f.dev.records.query(Query(recordType: "Note", filters: [filter]), in: f.pub).records.count == 1, "\(filter.comparator)")
        }
    }

    @Test func resetDevelopmentReturnsToProduction() throws {
        let f = try Fixture(schema: "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE );")
        try f.store.lifecycle.deploy(f.container, by: "t")
        _ = try f.save([note("a", ["title": .string("x"), "extra": .int64(1)]), StoredRecord(recordName: "b", recordType: "Scratch")])
        try f.dev.zones.createZone(ZoneID(zoneName: "Z"), in: f.alicePrivate)
        _ = try f.save([note("p")], in: f.prod)
        try f.store.lifecycle.resetDevelopment(f.container)
        #expect(try f.dev.schema.current() == f.prod.schema.current())
        #expect(try f.dev.records.query(Query(recordType: "Note"), in: f.pub).records.isEmpty)
        #expect(try f.dev.zones.all(in: f.alicePrivate).map(\.zoneID.zoneName) == ["_defaultZone"])
        #expect(try f.prod.records.lookup(["p"], in: f.pub)[0].get().recordName == "p")
        // Works again after the reset.
        _ = try f.save([note("again", ["title": .string("y")])])
    }

    @Test func resetWithNothingDeployedEmptiesTheSchema() throws {
        let f = try Fixture()
        _ = try f.save([note("a", ["title": .string("x")])])
        try f.store.lifecycle.resetDevelopment(f.container)
        #expect(try f.dev.schema.current() == Schema())
    }

    @Test func applesSampleImportsAndExports() throws {
        let f = try Fixture()
        let text = """
            DEFINE SCHEMA
                CREATE ROLE DeptManager;
                RECORD TYPE Department (
                    "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                    "___recordID" REFERENCE QUERYABLE,
                    name STRING, phone LIST<STRING>, employees LIST<REFERENCE>,
                    GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world",
                    GRANT WRITE, CREATE, READ TO DeptManager
                );
            """
        try f.store.lifecycle.importSchema(try SchemaParser.parse(text), into: f.container)
        let exported = SchemaPrinter.print(try f.dev.schema.current())
        #expect(try SchemaParser.parse(exported) == SchemaParser.parse(text))
        try f.store.lifecycle.deploy(f.container, by: "t")
        #expect(SchemaPrinter.print(try f.prod.schema.current()) == exported)
        // The declared system index serves queries on creation time in Production.
        _ = try f.save([StoredRecord(recordName: "d", recordType: "Department", fields: ["name": .string("R&D")])], in: f.prod)
        let q = Query(recordType: "Department", filters: [QueryFilter(.system(.createdTimestamp), .greaterThan, .timestamp(millis: 0))], sorts: [QuerySort(.system(.createdTimestamp))])
        #expect(try f.prod.records.query(q, in: f.pub).records.count == 1)
    }

    @Test func containersAreIsolatedAndDeletable() throws {
        let f = try Fixture()
        let other = try ContainerID("iCloud.com.example.Other")
        try f.store.createContainer(other)
        expectError(.exists) { try f.store.createContainer(other) }
        _ = try f.save([note("a")])
        expectError(.badRequest) { try f.store.environment(other, .development).records.query(Query(recordType: "Note"), in: f.pub) }
        #expect(try f.store.containers().map(\.id.rawValue) == ["iCloud.com.example.Other", "iCloud.com.example.Tests"])
        try f.store.deleteContainer(other)
        expectError(.notFound) { try f.store.deleteContainer(other) }
        expectError(.notFound) { try f.store.environment(other, .development) }
        #expect(!FileManager.default.fileExists(atPath: f.directory.appendingPathComponent("containers/iCloud.com.example.Other").path))
    }
}
