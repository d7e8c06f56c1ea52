import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

@Suite struct ModifyTests {
    @Test(arguments: Backend.allCases) func createStampsSystemFieldsAndRefusesDuplicates(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let saved = try #require(try f.one(.create, note("n1", ["title": .string("Hello")])).record)
            #expect(saved.recordChangeTag?.isEmpty == false)
            #expect(saved.created?.userRecordName == Fixture.alice.userRecordName)
            #expect(saved.modified?.timestamp == saved.created?.timestamp)
            #expect(try f.one(.create, note("n1", ["title": .string("Again")])).code == .exists)
            let fetched = try f.dev.records.lookup(["n1"], in: f.pub)[0].get()
            #expect(fetched.fields["title"] == .string("Hello"))
        }
    }

    @Test(arguments: Backend.allCases) func updateChangesOnlyListedFieldsAndNeedsCurrentTag(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let v1 = try #require(try f.one(.create, note("n", ["a": .string("1"), "b": .int64(2)])).record)
            let v2 = try #require(try f.one(.update, note("n", ["a": .string("one")], tag: v1.recordChangeTag)).record)
            #expect(v2.fields == ["a": .string("one"), "b": .int64(2)])
            #expect(v2.recordChangeTag != v1.recordChangeTag)
            #expect(v2.created == v1.created)

            // A stale tag is a conflict that carries the server's record, so the client can merge.
            let stale = try f.one(.update, note("n", ["a": .string("lost")], tag: v1.recordChangeTag))
            #expect(stale.code == .conflict)
            #expect(stale.error?.serverRecord?.fields["a"] == .string("one"))
            #expect(stale.error?.serverRecord?.recordChangeTag == v2.recordChangeTag)
            // A missing tag is a conflict too.
            #expect(try f.one(.update, note("n", ["a": .string("x")])).code == .conflict)
            #expect(try f.one(.replace, note("n", ["a": .string("x")])).code == .conflict)
            #expect(try f.one(.delete, note("n")).code == .conflict)
            #expect(try f.one(.update, note("missing", [:], tag: "1")).code == .notFound)
            #expect(try f.dev.records.lookup(["n"], in: f.pub)[0].get().fields["a"] == .string("one"))
        }
    }

    @Test(arguments: Backend.allCases) func forceOperationsIgnoreTagsAndCreateWhenMissing(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let created = try #require(try f.one(.forceUpdate, note("n", ["a": .string("1"), "b": .int64(1)])).record)
            let updated = try #require(try f.one(.forceUpdate, note("n", ["a": .string("2")])).record)
            #expect(updated.fields == ["a": .string("2"), "b": .int64(1)])
            #expect(updated.created == created.created)
            let replaced = try #require(try f.one(.forceReplace, note("n", ["c": .double(1.5)])).record)
            #expect(replaced.fields == ["c": .double(1.5)])
            _ = try #require(try f.one(.forceReplace, note("fresh", ["a": .string("x")])).record)
            #expect(try f.one(.forceUpdate, StoredRecord(recordName: "typeless", recordType: "")).code == .badRequest)
        }
    }

    @Test(arguments: Backend.allCases) func replaceDropsUnlistedFields(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let v1 = try #require(try f.one(.create, note("n", ["a": .string("1"), "b": .int64(2)])).record)
            let v2 = try #require(try f.one(.replace, note("n", ["b": .int64(3)], tag: v1.recordChangeTag)).record)
            #expect(v2.fields == ["b": .int64(3)])
            #expect(try f.dev.records.lookup(["n"], in: f.pub)[0].get().fields == ["b": .int64(3)])
        }
    }

    @Test(arguments: Backend.allCases) func deleteAndForceDelete(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let v1 = try #require(try f.one(.create, note("a")).record)
            _ = try f.one(.create, note("b"))
            #expect(try f.one(.delete, note("a", tag: v1.recordChangeTag)) == .deleted(recordName: "a", zoneID: ZoneID(ownerRecordName: DatabaseID.publicOwner)))
            #expect(try f.one(.forceDelete, note("b")) == .deleted(recordName: "b", zoneID: ZoneID(ownerRecordName: DatabaseID.publicOwner)))
            #expect(try f.one(.forceDelete, note("b")).code == .notFound)
            #expect(try f.dev.records.lookup(["a", "b"], in: f.pub).allSatisfy { (try? $0.get()) == nil })
            // A deleted name can be used again.
            #expect(try f.one(.create, note("a")).record != nil)
        }
    }

    @Test(arguments: Backend.allCases) func nonAtomicBatchReportsEachOperation(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.one(.create, note("exists"))
            let results = try f.dev.records.modify([
                RecordOperation(.create, note("ok1")),
                RecordOperation(.create, note("exists")),
                RecordOperation(.update, note("nope", tag: "x")),
                RecordOperation(.create, note("ok2")),
            ], in: f.pub, actor: Fixture.alice)
            #expect(results.map(\.code) == [nil, .exists, .notFound, nil])
            #expect(results[1].error?.recordName == "exists")
            #expect(try f.dev.records.lookup(["ok1", "ok2"], in: f.pub).allSatisfy { (try? $0.get()) != nil })
        }
    }

    @Test(arguments: Backend.allCases) func atomicBatchInCustomZoneIsAllOrNothing(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Inbox")
            try f.dev.zones.createZone(zone, in: f.alicePrivate)
            _ = try f.save([note("taken")], database: f.alicePrivate, zone: zone)
            let results = try f.dev.records.modify([
                RecordOperation(.create, note("new1", ["newField": .string("x")])),
                RecordOperation(.create, note("taken")),
                RecordOperation(.create, note("new2")),
            ], in: f.alicePrivate, zoneID: zone, atomic: true, actor: Fixture.alice)
            #expect(results.map(\.code) == [.atomicError, .exists, .atomicError])
            #expect(try f.dev.records.lookup(["new1", "new2"], in: f.alicePrivate, zoneID: zone).allSatisfy { (try? $0.get()) == nil })
            // The just-in-time field of the failed batch was rolled back with it.
            #expect(try f.dev.schema.current().recordType(named: "Note")?.field(named: "newField") == nil)
            #expect(try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: nil).changed.map(\.recordName) == ["taken"])
        }
    }

    @Test(arguments: Backend.allCases) func atomicInDefaultZoneFallsBackToPerOperationResults(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.one(.create, note("taken"))
            let results = try f.dev.records.modify([RecordOperation(.create, note("a")), RecordOperation(.create, note("taken"))],
                                           in: f.pub, atomic: true, actor: Fixture.alice)
            #expect(results.map(\.code) == [nil, .exists])
        }
    }

    @Test(arguments: Backend.allCases) func aBatchNamingOneRecordTwiceIsRefusedWhole(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.dev.records.modify([RecordOperation(.create, note("kept"))], in: f.pub, actor: Fixture.alice)
            for ops in [[RecordOperation(.create, note("other")), RecordOperation(.forceUpdate, note("kept")), RecordOperation(.forceDelete, note("kept"))],
                        [RecordOperation(.create, note("a")), RecordOperation(.create, note("other")), RecordOperation(.forceReplace, note("a"))]] {
                let results = try f.dev.records.modify(ops, in: f.pub, actor: Fixture.alice)
                #expect(results.map(\.code) == (ops[0].record.recordName == "other" ? [.atomicError, .badRequest, .badRequest] : [.badRequest, .atomicError, .badRequest]))
            }
            // Nothing was written: "kept" is still there, "other" and "a" were never created.
            let lookups = try f.dev.records.lookup(["kept", "other", "a"], in: f.pub)
            #expect(lookups.map { $0.error == nil } == [true, false, false])
        }
    }

    @Test(arguments: Backend.allCases) func aPurgedZoneIsReportedAsPurgedAndRefusesWritesUntilCreatedAgain(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let zone = ZoneID(zoneName: "Z", ownerRecordName: Fixture.alice.userRecordName)
            _ = try f.dev.zones.createZone(zone, in: f.alicePrivate)
            let other = ZoneID(zoneName: "Kept", ownerRecordName: Fixture.alice.userRecordName)
            _ = try f.dev.zones.createZone(other, in: f.alicePrivate)
            try f.dev.zones.deleteZone(other, in: f.alicePrivate)
            _ = try f.dev.records.modify([RecordOperation(.create, note("n1"))], in: f.alicePrivate, zoneID: zone, actor: Fixture.alice)
            let token = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: nil).syncToken
            #expect(try f.dev.zones.purgeUserData(Fixture.alice.userRecordName) == 1)
            let changes = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: token)
            #expect(changes.deletedZones.map(\.zoneName) == ["Z"] && changes.deletionReasons == [.purged])
            let all = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: nil)
            #expect(Dictionary(uniqueKeysWithValues: zip(all.deletedZones.map(\.zoneName), all.deletionReasons)) == ["Z": .purged, "Kept": .deleted])
            expectError(.userDeletedZone) { try f.dev.records.modify([RecordOperation(.create, note("n2"))], in: f.alicePrivate, zoneID: zone, actor: Fixture.alice) }
            expectError(.userDeletedZone) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: zone, since: nil) }
            expectError(.zoneNotFound) { try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: other, since: nil) }
            _ = try f.dev.zones.createZone(zone, in: f.alicePrivate)
            #expect(try f.dev.records.modify([RecordOperation(.create, note("n2"))], in: f.alicePrivate, zoneID: zone, actor: Fixture.alice).first?.error == nil)
        }
    }

    @Test(arguments: Backend.allCases) func batchLimitAndRecordSizeLimit(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let ops = (0...400).map { RecordOperation(.create, note("n\($0)")) }
            // CloudKit's LIMIT_EXCEEDED (clients split and retry on it), not BAD_REQUEST or the user's QUOTA_EXCEEDED.
            expectError(.limitExceeded) { try f.dev.records.modify(ops, in: f.pub, actor: Fixture.alice) }
            #expect(try f.dev.records.modify(Array(ops.prefix(400)), in: f.pub, actor: Fixture.alice).allSatisfy { $0.error == nil })
            let big = try f.one(.create, note("big", ["data": .bytes(Data(count: 1_000_001))]))
            #expect(big.code == .limitExceeded)
            let fits = try f.one(.create, note("fits", ["data": .bytes(Data(count: 900_000))]))
            #expect(fits.error == nil)
        }
    }

    @Test(arguments: Backend.allCases) func customZonesOnlyOutsideThePublicDatabase(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            expectError(.badRequest) { try f.dev.zones.createZone(ZoneID(zoneName: "Z"), in: f.pub) }
            expectError(.zoneNotFound) { try f.dev.records.modify([RecordOperation(.create, note("x"))], in: f.alicePrivate, zoneID: ZoneID(zoneName: "Nope"), actor: Fixture.alice) }
            expectError(.badRequest) { try f.dev.zones.createZone(ZoneID(zoneName: "bad name"), in: f.alicePrivate) }
        }
    }

    @Test(arguments: Backend.allCases) func privateDatabasesAreSeparate(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let bobPrivate = DatabaseID.privateDatabase(of: Fixture.bob.userRecordName)
            _ = try f.save([note("secret", ["v": .string("alice's")])], database: f.alicePrivate)
            #expect((try? f.dev.records.lookup(["secret"], in: bobPrivate)[0].get()) == nil)
            #expect(try f.dev.records.query(Query(recordType: "Note"), in: bobPrivate).records.isEmpty)
            #expect(try f.dev.records.query(Query(recordType: "Note"), in: f.alicePrivate).records.count == 1)
        }
    }

    @Test(arguments: Backend.allCases) func lookupHonoursDesiredKeysAndReportsMissing(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            _ = try f.one(.create, note("n", ["a": .string("1"), "b": .int64(2)]))
            let results = try f.dev.records.lookup(["n", "gone"], in: f.pub, desiredKeys: ["b"])
            #expect(try results[0].get().fields == ["b": .int64(2)])
            if case .failure(let e) = results[1] { #expect(e.code == .notFound && e.recordName == "gone") } else { Issue.record("expected NOT_FOUND") }
        }
    }

    /// An export reads every field sorted by name; fields created in another order must still decode as themselves.
    @Test(arguments: Backend.allCases) func exportReadsFieldsCreatedOutOfNameOrder(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let fields: RecordFields = ["zeta": .list(.string, [.string("z")]), "alpha": .int64(1), "mid": .string("m")]
            _ = try f.one(.create, note("a", ["zeta": fields["zeta"]!]))
            _ = try f.one(.create, note("b", fields))
            var sink = StoredRecordSink()
            #expect(try f.dev.records.streamRecords(in: f.pub, zoneID: .defaultZone, into: &sink) == 2)
            #expect(sink.records.map(\.fields) == [["zeta": fields["zeta"]!], fields])
        }
    }
}
