import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// What a write leaves behind on PostgreSQL, where every write updates its zone's row and its database's counter:
/// both stay one live row each, updated in place, and the statements that reserve ids name their sequence.
@Suite struct PostgresWriteShapeTests {
    /// The sequence a type's ids come from is the one PostgreSQL made for the table (`CatalogType.idSequence`),
    /// for a type made with the schema's first write and for one added later.
    @Test func idsComeFromTheSequenceTheTableWasMadeWith() async throws {
        try await Fixture.with(.postgres) { f throws in
            try f.save([note("n1")])
            try f.save([StoredRecord(recordName: "s1", recordType: "Song", recordChangeTag: nil, fields: ["title": .string("x")])])
            let types = try f.dev.core.read { s, catalog in
                try catalog.types.map { t in (t.idSequence, try s.one("SELECT pg_get_serial_sequence(?, 'id')", [t.table]) { $0.string(0) } ?? "") }
            }
            #expect(types.count == 2)
            for (expected, made) in types { #expect(made.hasSuffix("." + expected), "\(made)") }
            // Each type's first record took its sequence's first value.
            let ids = try f.dev.core.read { s, _ in try s.all("SELECT record_id FROM record_log ORDER BY type_id") { $0.int64(0) } }
            #expect(ids == [1, 1])
        }
    }

    /// A zone's change position is in no index on PostgreSQL (migration v25), so moving it is a heap-only update:
    /// after many writes into one zone, the database's feed still lists its zones in the order they changed.
    @Test func zoneUpdatesTouchNoIndexAndTheFeedKeepsItsOrder() async throws {
        try await Fixture.with(.postgres) { f throws in
            let zones = ["A", "B", "C"].map { ZoneID(zoneName: $0) }
            for z in zones { try f.dev.zones.createZone(z, in: f.alicePrivate) }
            let indexed = try f.dev.core.read { s, _ in
                try s.all("SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'zones'") { $0.string(0) }
            }
            #expect(!indexed.isEmpty)
            #expect(!indexed.contains { $0.contains("change_seq") }, "\(indexed)")
            let start = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: nil).syncToken
            for (i, z) in [zones[2], zones[0], zones[1], zones[0]].enumerated() {
                try f.save([note("n\(i)")], database: f.alicePrivate, zone: z)
            }
            let changed = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: start)
            #expect(changed.changedZones.map(\.zoneID.zoneName) == ["C", "B", "A"])
            let firstTwo = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: start, resultsLimit: 2)
            #expect(firstTwo.changedZones.map(\.zoneID.zoneName) == ["C", "B"] && firstTwo.moreComing)
            let rest = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: firstTwo.syncToken)
            #expect(rest.changedZones.map(\.zoneID.zoneName) == ["A"] && !rest.moreComing)
        }
    }

    /// A database's counter is made by its first write and then only locked and moved: one row per database,
    /// holding the last value handed out.
    @Test func aDatabasesCounterIsMadeOnceAndMovesWithEachWrite() async throws {
        try await Fixture.with(.postgres) { f throws in
            let carol = RequestActor(userRecordName: "_" + String(repeating: "c", count: 32))
            let database = DatabaseID.privateDatabase(of: carol.userRecordName)
            var tags: [Int64] = []
            for i in 0..<3 {
                let saved = try f.save([note("c\(i)")], database: database, actor: carol)
                tags.append(Int64(try #require(saved.first?.recordChangeTag), radix: 36) ?? 0)
            }
            let rows = try f.dev.core.read { s, _ in
                try s.all("SELECT value FROM change_counters WHERE scope = 'private' AND owner = ?", [carol.userRecordName]) { $0.int64(0) }
            }
            #expect(rows == [tags[2]])
            #expect(tags[0] < tags[1] && tags[1] < tags[2])
        }
    }
}
