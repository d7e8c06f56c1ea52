import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

@Suite struct ChangeTrackingTests {
    @Test(arguments: Backend.allCases) func zoneChangesPageWithMoreComingAndReportDeletions(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Sync")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            _ = try f.save((0..<250).map { note("n\($0)", ["i": .int64(Int64($0))]) }, database: f.alicePrivate, zone: zone)

            let first = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: nil, resultsLimit: 200)
            #expect(first.changed.count == 200 && first.moreComing)
            #expect(first.changed.first?.recordName == "n0")
            let second = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: first.syncToken, resultsLimit: 200)
            #expect(second.changed.count == 50 && !second.moreComing)
            let idle = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: second.syncToken)
            #expect(idle.changed.isEmpty && idle.deleted.isEmpty && !idle.moreComing)

            // Changes after the token: an update and a delete; an unchanged record is not sent again.
            let n5 = try f.dev.records.lookup(["n5"], in: f.alicePrivate, zoneID: zone)[0].get()
            _ = try f.one(.update, note("n5", ["i": .int64(-5)], tag: n5.recordChangeTag), database: f.alicePrivate, zone: zone)
            _ = try f.one(.forceDelete, note("n6"), database: f.alicePrivate, zone: zone)
            let delta = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: idle.syncToken, desiredKeys: ["i"])
            #expect(delta.changed.map(\.recordName) == ["n5"])
            #expect(delta.changed[0].fields == ["i": .int64(-5)])
            #expect(delta.deleted == ["n6"])
        }
    }

    @Test(arguments: Backend.allCases) func tokenPagingIsStableUnderConcurrentWrites(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.save((0..<500).map { note("n\($0)") })
            var token: String? = nil
            var seen = Set<String>()
            var round = 0
            repeat {
                let page = try f.dev.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: token, resultsLimit: 100)
                seen.formUnion(page.changed.map(\.recordName))
                token = page.syncToken
                // While paging, other clients write: new records and changes to already-synced ones.
                _ = try f.save([note("new\(round)")])
                _ = try f.one(.forceUpdate, note("n\(round)", ["touched": .int64(1)]))
                round += 1
                if !page.moreComing { break }
            } while true
            let tail = try f.dev.zones.zoneChanges(in: f.pub, zoneID: .defaultZone, since: token)
            seen.formUnion(tail.changed.map(\.recordName))
            let expected = Set((0..<500).map { "n\($0)" } + (0..<round).map { "new\($0)" })
            #expect(seen == expected)
        }
    }

    @Test(arguments: Backend.allCases) func garbageTokensAreClearErrors(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Z")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            _ = try f.save([note("a")], database: f.alicePrivate, zone: zone)
            let token = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: nil).syncToken
            for garbage in ["", "garbage", "AAAA", String(repeating: "x", count: 10_000), token + "x", String(token.dropLast(2))] {
                expectError(.badRequest) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: garbage) }
                expectError(.badRequest) { try f.dev.zones.databaseChanges(in: f.alicePrivate, since: garbage) }
            }
            // A zone token is not a database token, and belongs to its zone only.
            expectError(.badRequest) { try f.dev.zones.databaseChanges(in: f.alicePrivate, since: token) }
            expectError(.badRequest) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: .defaultZone, since: token) }
            expectError(.zoneNotFound) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: ZoneID(zoneName: "Other"), since: nil) }
        }
    }

    @Test(arguments: Backend.allCases) func databaseChangesListZonesCreatedChangedAndDeleted(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let start = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: nil)
            #expect(start.changedZones.isEmpty)
            try f.dev.zones.createZone(ZoneID(zoneName: "A"), in: f.alicePrivate)
            try f.dev.zones.createZone(ZoneID(zoneName: "B"), in: f.alicePrivate)
            let afterCreate = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: start.syncToken)
            #expect(afterCreate.changedZones.map(\.zoneID.zoneName) == ["A", "B"])
            _ = try f.save([note("x")], database: f.alicePrivate, zone: ZoneID(zoneName: "A"))
            let afterWrite = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: afterCreate.syncToken)
            #expect(afterWrite.changedZones.map(\.zoneID.zoneName) == ["A"])
            try f.dev.zones.deleteZone(ZoneID(zoneName: "A"), in: f.alicePrivate)
            let afterDelete = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: afterWrite.syncToken)
            #expect(afterDelete.deletedZones.map(\.zoneName) == ["A"])
            #expect(afterDelete.changedZones.isEmpty)
            // Other users' databases are not in the feed.
            let bob = try f.dev.zones.databaseChanges(in: .privateDatabase(of: Fixture.bob.userRecordName), since: nil)
            #expect(bob.changedZones.isEmpty && bob.deletedZones.isEmpty)
        }
    }

    @Test(arguments: Backend.allCases) func deletingAZoneDeletesItsRecords(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Trash")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            _ = try f.save([note("a", ["tags": .list(.string, [.string("x")]), "t": .string("words here")]), note("b")], database: f.alicePrivate, zone: zone)
            let oldToken = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: nil).syncToken
            try f.dev.zones.deleteZone(zone, in: f.alicePrivate)
            expectError(.zoneNotFound) { try f.dev.records.lookup(["a"], in: f.alicePrivate, zoneID: zone) }
            #expect(try f.dev.zones.all(in: f.alicePrivate).map(\.zoneID.zoneName) == ["_defaultZone"])
            // Recreated under the same name, it starts empty and old tokens do not carry over.
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            #expect(try f.dev.records.query(Query(recordType: "Note", zoneID: zone), in: f.alicePrivate).records.isEmpty)
            #expect(try f.dev.records.query(Query(recordType: "Note", filters: [QueryFilter(.field("tags"), .listContains, .string("x"))], zoneID: zone), in: f.alicePrivate).records.isEmpty)
            // CloudKit's CHANGE_TOKEN_EXPIRED: the client fetches the recreated zone from scratch.
            expectError(.changeTokenExpired) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: oldToken) }
            expectError(.badRequest) { try f.dev.zones.deleteZone(.defaultZone, in: f.alicePrivate) }
            expectError(.zoneNotFound) { try f.dev.zones.deleteZone(ZoneID(zoneName: "Never"), in: f.alicePrivate) }
        }
    }
}
