import Foundation
import GRDB
import Testing
@testable import StratusModel
@testable import StratusStore

/// The compiler's SQL must let SQLite use the index each filter names: a plan that scans the table, or the
/// zone's index, or sorts, turns a 1 ms query into a 100 ms one at a million records.
@Suite struct QueryCompilerTests {
    let schema = """
        DEFINE SCHEMA RECORD TYPE Item (
            "___recordID" REFERENCE QUERYABLE,
            title STRING QUERYABLE SORTABLE, body STRING SEARCHABLE, n INT64 QUERYABLE SORTABLE,
            tags LIST<STRING> QUERYABLE, place LOCATION QUERYABLE SORTABLE, owner REFERENCE QUERYABLE
        );
        """

    private func plan(_ f: Fixture, _ query: Query, marker: [SQLValue]? = nil) throws -> String {
        try f.prod.core.sqlite!.gated.read { db in
            let catalog = try f.prod.core.catalog(db.sql)
            var compiler = QueryCompiler(type: catalog.type(named: "Item")!, environment: .production, desiredKeys: nil)
            let compiled = try compiler.compile(query, zoneCondition: "t.zone_id = ?", zoneArguments: [.int64(1)], after: marker)
            var details: [String] = []
            try db.sql.each("EXPLAIN QUERY PLAN " + compiled.sql, compiled.arguments) { r in details.append(r.string(3) ?? "") }
            return details.joined(separator: "\n")
        }
    }

    @Test func everyHotQueryUsesItsIndexWithoutSorting() throws {
        let f = try Fixture(schema: schema)
        try f.store.lifecycle.deploy(f.container, by: "t")
        let paris = Location(latitude: 48.85, longitude: 2.35)
        let cases: [(Query, String)] = [
            (Query(recordType: "Item", filters: [QueryFilter(.field("title"), .equals, .string("a"))]), "t1_f"),
            (Query(recordType: "Item", filters: [QueryFilter(.field("owner"), .equals, .reference(Reference(recordName: "u")))]), "t1_f"),
            (Query(recordType: "Item", filters: [QueryFilter(.field("n"), .greaterThan, .int64(5))], sorts: [QuerySort(.field("n"))]), "t1_f"),
            (Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, .string("x"))]), "INTEGER PRIMARY KEY"),
            (Query(recordType: "Item", filters: [QueryFilter(.field("body"), .containsAllTokens, .string("a b"))]), "INTEGER PRIMARY KEY"),
            (Query(recordType: "Item"), "t1_name"),
        ]
        for (query, expected) in cases {
            let p = try plan(f, query)
            #expect(p.contains(expected), "\(query.filters.first?.comparator.rawValue ?? "none"): \(p)")
            #expect(!p.contains("SCAN t\n") && !p.hasSuffix("SCAN t"), "table scan: \(p)")
            #expect(!p.contains("TEMP B-TREE"), "sort: \(p)")
            #expect(!p.contains("t1_name (zone_id=?)") || query.filters.isEmpty, "zone index scan: \(p)")
        }
        // NEAR sorts by distance (computed), but finds candidates by seeks in the location's cell table, then
        // reads those rows by id.
        let near = try plan(f, Query(recordType: "Item", filters: [QueryFilter(.field("place"), .near, .location(paris), distance: 1000)],
                                     sorts: [QuerySort(.field("place"), relativeLocation: paris)]))
        #expect(near.contains("_geo USING PRIMARY KEY (cell>? AND cell<?)") && near.contains("INTEGER PRIMARY KEY"), "\(near)")
        #expect(!near.contains("SCAN t1_f"), "\(near)")
        // A continuation page seeks in the sort index rather than scanning from the start.
        let page = try plan(f, Query(recordType: "Item", sorts: [QuerySort(.field("n"))]), marker: [.int64(5), .int64(10)])
        #expect(page.contains("zone_id=? AND f") && page.contains(">?)") && !page.contains("TEMP B-TREE"), "\(page)")
        // An equality filter with a sort on another field: the filter's index finds the few rows, which are then
        // sorted; never the sort index walked through the zone (whatever statistics SQLite has).
        let plain = try plan(f, Query(recordType: "Item", filters: [QueryFilter(.field("title"), .equals, .string("a"))]))
        let titleIndex = plain.firstMatch(of: /USING INDEX (\w+) \(/).map { String($0.1) }
        for marker in [nil, [.text("b"), .int64(5), .int64(10)]] as [[SQLValue]?] {
            let pinned = try plan(f, Query(recordType: "Item", filters: [QueryFilter(.field("title"), .equals, .string("a"))], sorts: [QuerySort(.field("n"))]),
                                  marker: marker.map { Array($0.dropFirst()) })
            #expect(pinned.contains("USING INDEX \(try #require(titleIndex)) (zone_id=? AND f"), "\(pinned)")
        }
    }
}
