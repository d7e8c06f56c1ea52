import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Ten items with every kind of field, in Development (JIT indexes) and in Production (imported, deployed indexes).
private let names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
private let paris = Location(latitude: 48.8566, longitude: 2.3522)

private func items() -> [StoredRecord] {
    names.enumerated().map { i, name in
        var fields: RecordFields = [
            "name": .string(name),
            "n": .int64(Int64(i)),
            "x": .double(Double(i) * 1.5),
            "at": .timestamp(millis: 1_000 * Int64(i)),
            "tags": .list(.string, [.string(i % 2 == 0 ? "even" : "odd"), .string("t\(i)"), .string("all")]),
            "nums": .list(.int64, [.int64(Int64(i)), .int64(Int64(i * 10))]),
            "body": .string(i < 5 ? "the quick brown fox \(name)" : "lazy dogs sleep \(name)"),
            // Points going north from Paris, 1 km apart.
            "where": .location(Location(latitude: paris.latitude + Double(i) * 0.008993, longitude: paris.longitude)),
            "owner": .reference(Reference(recordName: i < 3 ? "u1" : "u2")),
        ]
        if i == 9 { fields["n"] = nil }
        return StoredRecord(recordName: "r\(i)", recordType: "Item", fields: fields)
    }
}

private let productionSchema = """
DEFINE SCHEMA
    RECORD TYPE Item (
        "___recordID" REFERENCE QUERYABLE,
        "___createTime" TIMESTAMP QUERYABLE SORTABLE,
        "___modTime" TIMESTAMP QUERYABLE SORTABLE,
        name STRING QUERYABLE SORTABLE SEARCHABLE,
        n INT64 QUERYABLE SORTABLE,
        x DOUBLE QUERYABLE SORTABLE,
        at TIMESTAMP QUERYABLE SORTABLE,
        tags LIST<STRING> QUERYABLE,
        nums LIST<INT64> QUERYABLE,
        body STRING SEARCHABLE,
        "where" LOCATION QUERYABLE SORTABLE,
        owner REFERENCE QUERYABLE
    );
"""

private func s(_ v: String) -> FieldValue { .string(v) }
private func i(_ v: Int64) -> FieldValue { .int64(v) }
private func strings(_ v: [String]) -> FieldValue { .list(.string, v.map { .string($0) }) }
private func ints(_ v: [Int64]) -> FieldValue { .list(.int64, v.map { .int64($0) }) }

/// (filter, the record numbers it must return)
private let comparatorCases: [(QueryFilter, Set<Int>)] = [
    (QueryFilter(.field("name"), .equals, s("gamma")), [2]),
    (QueryFilter(.field("n"), .notEquals, i(3)), [0, 1, 2, 4, 5, 6, 7, 8]),
    (QueryFilter(.field("n"), .lessThan, i(3)), [0, 1, 2]),
    (QueryFilter(.field("n"), .lessThanOrEquals, i(3)), [0, 1, 2, 3]),
    (QueryFilter(.field("x"), .greaterThan, .double(10.5)), [8, 9]),
    (QueryFilter(.field("at"), .greaterThanOrEquals, .timestamp(millis: 7_000)), [7, 8, 9]),
    (QueryFilter(.field("where"), .near, .location(paris), distance: 2_500), [0, 1, 2]),
    (QueryFilter(.field("body"), .containsAllTokens, s("Quick FOX")), [0, 1, 2, 3, 4]),
    (QueryFilter(.field("body"), .containsAnyTokens, s("zeta brown")), [0, 1, 2, 3, 4, 5]),
    // `self CONTAINS 'words'`: every word in some string field (name or body) of the record.
    (QueryFilter(.field(QueryFilter.allFields), .containsAllTokens, s("gamma FOX")), [2]),
    (QueryFilter(.field(QueryFilter.allFields), .containsAnyTokens, s("gamma iota")), [2, 8]),
    (QueryFilter(.field("name"), .in, strings(["beta", "iota", "nobody"])), [1, 8]),
    (QueryFilter(.field("n"), .notIn, ints([0, 1, 2, 3, 4, 5])), [6, 7, 8]),
    (QueryFilter(.field("tags"), .listContains, s("odd")), [1, 3, 5, 7, 9]),
    (QueryFilter(.field("tags"), .notListContains, s("odd")), [0, 2, 4, 6, 8]),
    (QueryFilter(.field("tags"), .notListContainsAny, strings(["t1", "t2", "odd"])), [0, 4, 6, 8]),
    (QueryFilter(.field("name"), .beginsWith, s("e")), [4, 6]),
    (QueryFilter(.field("name"), .notBeginsWith, s("e")), [0, 1, 2, 3, 5, 7, 8, 9]),
    (QueryFilter(.field("tags"), .listMemberBeginsWith, s("ev")), [0, 2, 4, 6, 8]),
    (QueryFilter(.field("tags"), .notListMemberBeginsWith, s("t")), []),
    (QueryFilter(.field("nums"), .listContainsAll, ints([3, 30])), [3]),
    (QueryFilter(.field("nums"), .notListContainsAll, ints([3, 30])), [0, 1, 2, 4, 5, 6, 7, 8, 9]),
    (QueryFilter(.field("nums"), .listContainsAny, ints([20, 3, 90])), [2, 3, 9]),
    // System fields and references.
    (QueryFilter(.system(.recordName), .equals, .reference(Reference(recordName: "r4"))), [4]),
    (QueryFilter(.system(.recordName), .in, strings(["r1", "r2"])), [1, 2]),
    (QueryFilter(.system(.createdTimestamp), .greaterThan, .timestamp(millis: 0)), Set(0..<10)),
    (QueryFilter(.system(.modifiedTimestamp), .lessThan, .timestamp(millis: 0)), []),
    (QueryFilter(.field("owner"), .equals, .reference(Reference(recordName: "u1"))), [0, 1, 2]),
    (QueryFilter(.field("tags"), .equals, s("even")), [0, 2, 4, 6, 8]),
]

@Suite struct QueryTests {
    static func fixtures(_ backend: Backend) throws -> [(Fixture, EnvironmentStore)] {
        guard let jit = try Fixture.make(backend), let prod = try Fixture.make(backend, schema: productionSchema) else { return [] }
        _ = try jit.save(items())
        try prod.store.lifecycle.deploy(prod.container, by: "test")
        _ = try prod.save(items(), in: prod.prod)
        return [(jit, jit.dev), (prod, prod.prod)]
    }

    @Test(arguments: Backend.allCases) func everyComparatorInBothEnvironments(_ backend: Backend) async throws {
        try await offPool {
            #expect(Set(comparatorCases.map(\.0.comparator)) == Set(FilterComparator.allCases))
            for (f, env) in try Self.fixtures(backend) {
                for (filter, expected) in comparatorCases {
                    let result = try env.records.query(Query(recordType: "Item", filters: [filter]), in: f.pub)
                    let got = Set(result.records.map { Int($0.recordName.dropFirst())! })
                    #expect(got == expected, "\(env.environment) \(filter.comparator.rawValue) on \(filter.field.displayName)")
                }
            }
        }
    }

    @Test(arguments: Backend.allCases) func filtersCombineWithAnd(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save(items())
            let q = Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .listContains, s("even")), QueryFilter(.field("n"), .greaterThan, i(3))])
            #expect(try f.dev.records.query(q, in: f.pub).records.map(\.recordName) == ["r4", "r6", "r8"])
        }
    }

    @Test(arguments: Backend.allCases) func sortsAscendingDescendingAndByDistance(_ backend: Backend) async throws {
        try await offPool {
            for (f, env) in try Self.fixtures(backend) {
                let asc = try env.records.query(Query(recordType: "Item", sorts: [QuerySort(.field("name"))]), in: f.pub)
                #expect(asc.records.map { $0.fields["name"] } == names.sorted().map { .string($0) })
                let desc = try env.records.query(Query(recordType: "Item", sorts: [QuerySort(.field("n"), ascending: false)]), in: f.pub)
                // A record without the field sorts last when descending.
                #expect(desc.records.map(\.recordName) == ["r8", "r7", "r6", "r5", "r4", "r3", "r2", "r1", "r0", "r9"])
                let far = Location(latitude: paris.latitude + 0.1, longitude: paris.longitude)
                let near = try env.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("where"), .near, .location(far), distance: 8_000)],
                                               sorts: [QuerySort(.field("where"), relativeLocation: far)]), in: f.pub)
                #expect(near.records.map(\.recordName) == ["r9", "r8", "r7", "r6", "r5", "r4"])
                let multi = try env.records.query(Query(recordType: "Item", sorts: [QuerySort(.field("x"), ascending: false), QuerySort(.field("name"))],
                                                resultsLimit: 3), in: f.pub)
                #expect(multi.records.map(\.recordName) == ["r9", "r8", "r7"])
            }
        }
    }

    @Test(arguments: Backend.allCases) func listsAndBareLocationsCannotBeSorted(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save(items())
            // Lists cannot be sorted; a location sorts only by distance from a point.
            expectError(.badRequest) { try f.dev.records.query(Query(recordType: "Item", sorts: [QuerySort(.field("tags"))]), in: f.pub) }
            expectError(.badRequest) { try f.dev.records.query(Query(recordType: "Item", sorts: [QuerySort(.field("where"))]), in: f.pub) }
        }
    }

    @Test(arguments: Backend.allCases) func malformedQueriesAreErrorsNotCrashes(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save(items())
            let bad: [Query] = [
                Query(recordType: "Nope"),
                Query(recordType: "Item", filters: [QueryFilter(.field("missing"), .equals, s("x"))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("n"), .equals, s("three"))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("n"), .in, i(3))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("n"), .in, .list(.int64, []))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("n"), .listContains, i(3))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("tags"), .lessThan, s("x"))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("where"), .near, .location(paris))]),
                Query(recordType: "Item", filters: [QueryFilter(.field("where"), .near, s("paris"), distance: 5)]),
                Query(recordType: "Item", filters: [QueryFilter(.field("body"), .containsAllTokens, s("  ,, "))]),
                Query(recordType: "Item", filters: [QueryFilter(.system(.share), .beginsWith, s("x"))]),
                Query(recordType: "Item", filters: [QueryFilter(.system(.parent), .in, s("x"))]),
                Query(recordType: "Item", resultsLimit: -1),
                Query(recordType: "Item", continuationMarker: "garbage"),
                Query(recordType: "Item", continuationMarker: ""),
                Query(recordType: "'; DROP TABLE t1; --"),
            ]
            for q in bad { expectError(.badRequest) { try f.dev.records.query(q, in: f.pub) } }
            // Values that look like SQL are just values.
            #expect(try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("name"), .equals, s("' OR 1=1 --"))]), in: f.pub).records.isEmpty)
            #expect(try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("body"), .containsAnyTokens, s("\"fox\" OR NEAR(*)"))]), in: f.pub).records.count == 5)
        }
    }

    @Test(arguments: Backend.allCases) func continuationMarkersPageThroughEverything(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let all = (0..<450).map { StoredRecord(recordName: String(format: "rec%04d", $0), recordType: "Row", fields: ["k": .int64(Int64($0 % 7)), "v": .int64(Int64($0))]) }
            _ = try f.save(all)
            for sorts in [[], [QuerySort(.field("k"))], [QuerySort(.field("k"), ascending: false), QuerySort(.field("v"))]] {
                var q = Query(recordType: "Row", sorts: sorts, resultsLimit: 100)
                var seen: [String] = []
                var pages = 0
                repeat {
                    let page = try f.dev.records.query(q, in: f.pub)
                    seen += page.records.map(\.recordName)
                    q.continuationMarker = page.continuationMarker
                    pages += 1
                } while q.continuationMarker != nil
                #expect(pages == 5)
                #expect(seen.count == 450 && Set(seen).count == 450, "\(sorts)")
            }
        }
    }

    @Test(arguments: Backend.allCases) func markersStayCorrectWhileRecordsChange(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save((0..<300).map { StoredRecord(recordName: String(format: "r%03d", $0), recordType: "Row", fields: ["v": .int64(Int64($0))]) })
            var q = Query(recordType: "Row", sorts: [QuerySort(.field("v"))], resultsLimit: 100)
            let first = try f.dev.records.query(q, in: f.pub)
            // Meanwhile: records before the cursor are deleted, new ones arrive on both sides of it.
            _ = try f.dev.records.modify((0..<50).map { RecordOperation(.forceDelete, StoredRecord(recordName: String(format: "r%03d", $0), recordType: "Row")) }, in: f.pub, actor: Fixture.alice)
            _ = try f.save([StoredRecord(recordName: "early", recordType: "Row", fields: ["v": .int64(-1)]),
                            StoredRecord(recordName: "late", recordType: "Row", fields: ["v": .int64(1_000)])])
            q.continuationMarker = first.continuationMarker
            var rest: [String] = []
            repeat {
                let page = try f.dev.records.query(q, in: f.pub)
                rest += page.records.map(\.recordName)
                q.continuationMarker = page.continuationMarker
            } while q.continuationMarker != nil
            #expect(rest.first == "r100")
            #expect(rest.count == 201 && rest.last == "late")
            #expect(Set(first.records.map(\.recordName)).isDisjoint(with: rest))
        }
    }

    @Test(arguments: Backend.allCases) func markersAreTamperEvidentAndBoundToTheirQuery(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save(items())
            let page = try f.dev.records.query(Query(recordType: "Item", resultsLimit: 3), in: f.pub)
            let marker = try #require(page.continuationMarker)
            var chars = Array(marker)
            chars[chars.count / 2] = chars[chars.count / 2] == "A" ? "B" : "A"
            expectError(.badRequest) { try f.dev.records.query(Query(recordType: "Item", resultsLimit: 3, continuationMarker: String(chars)), in: f.pub) }
            expectError(.badRequest) {
                try f.dev.records.query(Query(recordType: "Item", filters: [QueryFilter(.field("n"), .greaterThan, i(0))], continuationMarker: marker), in: f.pub)
            }
            // Another environment's secret does not verify it either.
            expectError(.badRequest) { try f.prod.records.query(Query(recordType: "Item", resultsLimit: 3, continuationMarker: marker), in: f.pub) }
            #expect(try f.dev.records.query(Query(recordType: "Item", resultsLimit: 3, continuationMarker: marker), in: f.pub).records.count == 3)
        }
    }

    @Test(arguments: Backend.allCases) func desiredKeysAndResultsLimit(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save(items())
            let r = try f.dev.records.query(Query(recordType: "Item", resultsLimit: 2, desiredKeys: ["name"]), in: f.pub)
            #expect(r.records.count == 2)
            #expect(r.records.allSatisfy { Array($0.fields.keys) == ["name"] })
            let capped = try f.dev.records.query(Query(recordType: "Item", resultsLimit: 5_000), in: f.pub)
            #expect(capped.records.count == 10)
        }
    }

    @Test(arguments: Backend.allCases) func zoneWideQueriesSpanZones(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            try f.dev.zones.createZone(ZoneID(zoneName: "A"), in: f.alicePrivate)
            try f.dev.zones.createZone(ZoneID(zoneName: "B"), in: f.alicePrivate)
            _ = try f.save([note("a1")], database: f.alicePrivate, zone: ZoneID(zoneName: "A"))
            _ = try f.save([note("b1")], database: f.alicePrivate, zone: ZoneID(zoneName: "B"))
            let one = try f.dev.records.query(Query(recordType: "Note", zoneID: ZoneID(zoneName: "A")), in: f.alicePrivate)
            #expect(one.records.map(\.recordName) == ["a1"])
            let wide = try f.dev.records.query(Query(recordType: "Note", zoneID: nil), in: f.alicePrivate)
            #expect(Set(wide.records.map { "\($0.zoneID.zoneName)/\($0.recordName)" }) == ["A/a1", "B/b1"])
            expectError(.zoneNotFound) { try f.dev.records.query(Query(recordType: "Note", zoneID: ZoneID(zoneName: "C")), in: f.alicePrivate) }
        }
    }
}
