import Foundation
import Testing
@testable import StratusModel
@testable import StratusStore

/// Query shapes: every query is counted under its shape (values taken away), with its cost and SQLite's plan.
@Suite struct QueryShapeTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Item (
                "___recordID" REFERENCE QUERYABLE,
                category STRING QUERYABLE,
                count INT64 QUERYABLE SORTABLE,
                tags LIST<STRING> QUERYABLE
            );
        """

    @Test func shapesNameWhatAQueryPinsRangesAndSorts() {
        let a = QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("x")), QueryFilter(.field("count"), .greaterThan, .int64(3))],
                                 sorts: [QuerySort(.field("count"), ascending: false)]))
        let b = QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("count"), .greaterThan, .int64(99)), QueryFilter(.field("category"), .equals, .string("y"))],
                                 sorts: [QuerySort(.field("count"), ascending: false)]))
        #expect(a == b && a.description == "Item: category = · count range · sort -count")
        let c = QueryShape(Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("t"))]))
        #expect(c.description == "Item: tags LIST_CONTAINS · no sort" && c != a)
    }

    @Test func queriesAreCountedWithTheirCostAndPlan() throws {
        let f = try Fixture(schema: Self.schema)
        let records = (0..<400).map { i in
            StoredRecord(recordName: "r\(i)", recordType: "Item", fields: ["category": .string("c\(i % 4)"), "count": .int64(Int64(i)), "tags": .list(.string, [.string("t\(i % 7)")])])
        }
        try f.save(records, in: f.dev)
        for c in 0..<4 {
            let page = try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("c\(c)"))],
                                             sorts: [QuerySort(.field("count"), ascending: false)], resultsLimit: 20), in: f.pub)
            #expect(page.records.count == 20)
        }
        _ = try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("t1"))]), in: f.pub)
        let shapes = try f.dev.queryShapes.all()
        let listing = try #require(shapes.first { $0.shape == "Item: category = · sort -count" }, "\(shapes.map(\.shape))")
        #expect(listing.calls == 4 && listing.recordType == "Item" && listing.p99Milliseconds >= listing.p50Milliseconds && listing.stepsPerRow > 0)
        #expect(!listing.plan.isEmpty, "EXPLAIN QUERY PLAN of the recorded statement")
        #expect(shapes.contains { $0.shape == "Item: tags LIST_CONTAINS · no sort" && $0.calls == 1 })
        // Totals add up across flushes; Production counts its own.
        _ = try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("category"), .equals, .string("c0"))], sorts: [QuerySort(.field("count"), ascending: false)]), in: f.pub)
        #expect(try f.dev.queryShapes.all().first { $0.shape == listing.shape }?.calls == 5)
        #expect(try f.prod.queryShapes.all().isEmpty)
    }
}
