import Foundation
import GRDB
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Near queries answer from the location field's index table (SQLite: cells on a Z-order curve; PostgreSQL: a
/// GiST index of points). Whatever the index does, the answer must be the records within the distance, found by
/// brute force here, after records move, go away, or their zone does.
@Suite struct LocationIndexTests {
    static let schema = "DEFINE SCHEMA RECORD TYPE Spot (place LOCATION QUERYABLE SORTABLE, n INT64 QUERYABLE);"
    static let zone = ZoneID(zoneName: "Places")

    /// 140 points: clusters around Paris and across the antimeridian near Fiji, and a few near the pole.
    static func spots() -> [StoredRecord] {
        var rng = SeededGenerator(seed: 29)
        var out: [StoredRecord] = []
        for i in 0..<140 {
            let (lat, lon): (Double, Double)
            switch i % 4 {
            case 0, 1: (lat, lon) = (48.85 + Double.random(in: -0.3...0.3, using: &rng), 2.35 + Double.random(in: -0.4...0.4, using: &rng))
            case 2: (lat, lon) = (-17.7 + Double.random(in: -0.5...0.5, using: &rng), [179.9, -179.9].randomElement(using: &rng)! + Double.random(in: -0.09...0.09, using: &rng))
            default: (lat, lon) = (89.9 + Double.random(in: -0.09...0.09, using: &rng), Double.random(in: -180...180, using: &rng))
            }
            out.append(StoredRecord(recordName: "s\(i)", recordType: "Spot", fields: ["place": .location(Location(latitude: lat, longitude: lon)), "n": .int64(Int64(i))]))
        }
        return out
    }

    static let centres: [(Location, Double)] = [
        (Location(latitude: 48.85, longitude: 2.35), 5_000), (Location(latitude: 48.85, longitude: 2.35), 25_000),
        (Location(latitude: 48.9, longitude: 2.1), 12_000), (Location(latitude: -17.7, longitude: 180), 20_000),
        (Location(latitude: -17.7, longitude: -179.95), 40_000), (Location(latitude: 89.95, longitude: 0), 15_000),
        (Location(latitude: 90, longitude: 0), 3_000), (Location(latitude: 10, longitude: 10), 1_000),
    ]

    /// Every centre's near query against the distances of `live`.
    static func check(_ env: EnvironmentStore, _ db: DatabaseID, _ live: [String: Location], _ when: String) throws {
        for (centre, distance) in centres {
            let q = Query(recordType: "Spot", filters: [QueryFilter(.field("place"), .near, .location(centre), distance: distance)],
                          sorts: [QuerySort(.field("place"), relativeLocation: centre)], zoneID: zone, resultsLimit: 200)
            let got = Set(try env.records.query(q, in: db).records.map(\.recordName))
            let expected = Set(live.filter { $0.value.distance(to: centre) <= distance }.keys)
            #expect(got == expected, "\(when): \(distance) m around (\(centre.latitude), \(centre.longitude)): missing \(expected.subtracting(got).sorted()), extra \(got.subtracting(expected).sorted())")
        }
    }

    /// On SQLite, the index table holds exactly one row per record with a location: none left behind.
    static func indexRows(_ env: EnvironmentStore) throws -> Int? {
        guard let pool = env.core.sqlite?.gated else { return nil }
        return try pool.read { db in
            let table = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 't%_geo' AND type = 'table'")!
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
        }
    }

    @Test(arguments: Backend.allCases) func nearFindsWhatIsWithinAsRecordsMoveAndGo(_ backend: Backend) async throws {
        try await Fixture.with(backend, schema: Self.schema) { f throws in
            let db = f.alicePrivate
            _ = try f.dev.zones.createZone(Self.zone, in: db)
            _ = try f.dev.zones.createZone(ZoneID(zoneName: "Other"), in: db)
            let spots = Self.spots()
            var live: [String: Location] = [:]
            for s in spots { if case .location(let l) = s.fields["place"] { live[s.recordName] = l } }
            try f.save(spots, database: db, zone: Self.zone)
            // The same points in another zone of the same table must not answer for this one.
            try f.save(spots, database: db, zone: ZoneID(zoneName: "Other"))
            try Self.check(f.dev, db, live, "saved")

            // Move every fifth record (to Paris, or far away), delete every seventh, drop the field of one.
            var moved: [StoredRecord] = []
            for (i, s) in spots.enumerated() where i % 5 == 0 {
                let l = i % 10 == 0 ? Location(latitude: 48.86, longitude: 2.34) : Location(latitude: -40, longitude: 100)
                var r = StoredRecord(recordName: s.recordName, recordType: "Spot", fields: ["place": .location(l)])
                r.recordChangeTag = nil
                moved.append(r)
                live[s.recordName] = l
            }
            try f.save(moved, op: .forceUpdate, database: db, zone: Self.zone)
            var gone: [StoredRecord] = []
            for (i, s) in spots.enumerated() where i % 7 == 3 { gone.append(s); live[s.recordName] = nil }
            _ = try f.dev.records.modify(gone.map { RecordOperation(.forceDelete, $0) }, in: db, zoneID: Self.zone, actor: Fixture.alice)
            try f.save([StoredRecord(recordName: "s1", recordType: "Spot", fields: ["n": .int64(1)])], op: .forceReplace, database: db, zone: Self.zone)
            live["s1"] = nil
            try Self.check(f.dev, db, live, "after moves and deletions")
            if let rows = try Self.indexRows(f.dev) { #expect(rows == live.count + spots.count, "index rows of both zones") }

            try f.dev.zones.deleteZone(ZoneID(zoneName: "Other"), in: db)
            try Self.check(f.dev, db, live, "after the other zone went")
            if let rows = try Self.indexRows(f.dev) { #expect(rows == live.count, "index rows once the other zone is gone") }
        }
    }

    /// A data directory made before the cell tables had R*Tree tables: opening it builds the cell table from the
    /// records, and near queries answer as before.
    @Test func anRTreeIndexFromBeforeIsBuiltAgainAsCells() throws {
        let directory: URL
        var live: [String: Location] = [:]
        do {
            let f = try Fixture(schema: Self.schema)
            directory = f.directory
            _ = try f.dev.zones.createZone(Self.zone, in: f.alicePrivate)
            let spots = Self.spots()
            for s in spots { if case .location(let l) = s.fields["place"] { live[s.recordName] = l } }
            try f.save(spots, database: f.alicePrivate, zone: Self.zone)
            // Put the old index back, as the previous release left it.
            try f.dev.core.sqlite!.gated.write { db in
                let table = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 't%_geo' AND type = 'table'")!
                let field = table.split(separator: "_")[1]
                try db.execute(sql: """
                    DROP TABLE \(table);
                    CREATE VIRTUAL TABLE \(table) USING rtree(id, min_lat, max_lat, min_lon, max_lon);
                    INSERT INTO \(table) SELECT id, \(field)_lat, \(field)_lat, \(field)_lon, \(field)_lon FROM t1 WHERE \(field)_lat IS NOT NULL;
                    DELETE FROM grdb_migrations WHERE identifier = 'v17-geo-cells';
                    """)
            }
            f.store.close()
            let reopened = try ServerStore(dataDirectory: directory, durability: .relaxed)
            let dev = try reopened.environment(f.container, .development)
            let rtrees = try dev.core.sqlite!.gated.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE sql LIKE '%USING rtree%'") }
            #expect(rtrees == 0)
            #expect(try Self.indexRows(dev) == live.count)
            try Self.check(dev, f.alicePrivate, live, "after the migration")
            reopened.close()
        }
    }
}

/// The same pseudo-random points on every run (SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
