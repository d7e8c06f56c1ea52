import Foundation
import Synchronization
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// Each database orders its own changes (`ChangeSequence`): writes to one database take turns on its counter, writes
/// to different databases do not wait for each other, and tokens made when one counter served the whole environment
/// still resume.
@Suite struct ChangeCounterTests {
    static let bobPrivate = DatabaseID.privateDatabase(of: Fixture.bob.userRecordName)

    /// On PostgreSQL, while a write to Alice's private database is held open, Bob's write to his own commits, and
    /// Alice's next write waits for the first and then draws later sequence values (what keeps her zone's tokens
    /// from passing over it).
    @Test func writesToOneDatabaseTakeTurnsAndOthersDoNot() async throws {
        try await Fixture.with(.postgres) { f throws in
            let inbox = ZoneID(zoneName: "Inbox")
            try f.dev.zones.createZone(inbox, in: f.alicePrivate)
            try f.save([note("a0")], database: f.alicePrivate, zone: inbox)
            try f.save([note("b0")], database: Self.bobPrivate, actor: Fixture.bob)
            let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let heldSeq = Mutex<Int64>(0)
            let holder = Thread {
                _ = try? f.dev.core.write(in: f.alicePrivate) { _, _, seq in
                    heldSeq.withLock { $0 = seq.next() }
                    held.signal()
                    release.wait()
                }
            }
            holder.start()
            held.wait()
            defer { release.signal() }
            // Bob's write does not wait for Alice's open one.
            let bobDone = DispatchSemaphore(value: 0)
            Thread { _ = try? f.save([note("b1")], database: Self.bobPrivate, actor: Fixture.bob); bobDone.signal() }.start()
            #expect(bobDone.wait(timeout: .now() + 20) == .success, "a write to another database waited for Alice's")
            // Alice's second write does.
            let aliceDone = DispatchSemaphore(value: 0)
            let saved = Mutex<[StoredRecord]>([])
            Thread { saved.withLock { $0 = (try? f.save([note("a1")], database: f.alicePrivate, zone: inbox)) ?? [] }; aliceDone.signal() }.start()
            #expect(aliceDone.wait(timeout: .now() + 1) == .timedOut, "two writes to one database ran at once")
            release.signal()
            #expect(aliceDone.wait(timeout: .now() + 20) == .success)
            let tag = try #require(saved.withLock { $0.first?.recordChangeTag })
            #expect(Int64(tag, radix: 36)! > heldSeq.withLock { $0 }, "the later write drew an earlier value")
        }
    }

    /// Eight users write to their own zones at once on PostgreSQL while some of their writes add fields to the
    /// Development schema (a write that must change the schema runs again holding the environment alone): every
    /// write lands with its fields, each zone's feed holds its records once in order, and `stratus check` is clean.
    @Test func concurrentWritesAndSchemaChangesKeepEveryInvariant() async throws {
        try await Fixture.with(.postgres) { f throws in
            try f.save([note("seed")])
            let users = (0..<8).map { RequestActor(userRecordName: "_" + String(repeating: String($0), count: 32)) }
            let failures = Mutex<[String]>([])
            let done = DispatchGroup()
            for (u, user) in users.enumerated() {
                done.enter()
                Thread {
                    defer { done.leave() }
                    for i in 0..<20 {
                        var fields: RecordFields = ["title": .string("t\(i)")]
                        if i % 7 == 3 { fields["added\(u)_\(i)"] = .int64(Int64(i)) }
                        do { try f.save([note("r\(i)", fields)], database: .privateDatabase(of: user.userRecordName), actor: user) } catch {
                            failures.withLock { $0.append("\(u)/\(i): \(error)") }
                        }
                    }
                }.start()
            }
            done.wait()
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            for (u, user) in users.enumerated() {
                let database = DatabaseID.privateDatabase(of: user.userRecordName)
                let changes = try f.dev.zones.zoneChanges(in: database, zoneID: .defaultZone, since: nil, resultsLimit: 200)
                #expect(changes.changed.map(\.recordName) == (0..<20).map { "r\($0)" }, "user \(u)")
                let r3 = try f.dev.records.lookup(["r3"], in: database)[0].get()
                #expect(r3.fields["added\(u)_3"] == .int64(3))
            }
            #expect(try f.dev.consistency.run().problems.isEmpty)
        }
    }

    /// A store from before per-database counters holds no counter rows and one environment-wide value in `meta`:
    /// tokens it issued resume there, seeing exactly what was written since.
    @Test(arguments: Backend.allCases) func tokensFromOneCounterResume(_ backend: Backend) async throws {
        try await Fixture.with(backend) { f throws in
            let inbox = ZoneID(zoneName: "Inbox")
            try f.dev.zones.createZone(inbox, in: f.alicePrivate)
            try f.save((0..<3).map { note("before-\($0)") }, database: f.alicePrivate, zone: inbox)
            try f.save([note("bob")], database: Self.bobPrivate, actor: Fixture.bob)
            let zoneToken = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: inbox, since: nil).syncToken
            let databaseToken = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: nil).syncToken
            // What the one counter would have held: past every value handed out.
            try f.dev.core.write { s, _ in
                let highest = try s.int64("SELECT MAX(value) FROM change_counters") ?? 0
                try s.execute("DELETE FROM change_counters")
                try s.execute("UPDATE meta SET value = ? WHERE key = 'next_seq'", highest + 1)
            }
            try f.save([note("after")], database: f.alicePrivate, zone: inbox)
            let zone = try f.dev.zones.zoneChanges(in: f.alicePrivate, zoneID: inbox, since: zoneToken)
            #expect(zone.changed.map(\.recordName) == ["after"])
            let database = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: databaseToken)
            #expect(database.changedZones.map(\.zoneID.zoneName) == ["Inbox"])
            let again = try f.dev.zones.databaseChanges(in: f.alicePrivate, since: database.syncToken)
            #expect(again.changedZones.isEmpty)
            // A shared database's token of that time was one number: it stands for every owner.
            let shared = DatabaseID(scope: .shared, ownerRecordName: Fixture.bob.userRecordName)
            let old = SyncToken.database(f.dev.core.signer, shared, seq: 42)
            #expect(try SyncToken.readShared(f.dev.core.signer, old, shared) == SharedPositions(rest: 42))
        }
    }

    /// A shared database's token names each owner's position and reads back as it was written.
    @Test func sharedTokensHoldAPositionPerOwner() throws {
        let f = try Fixture()
        let shared = DatabaseID(scope: .shared, ownerRecordName: Fixture.bob.userRecordName)
        var p = SharedPositions()
        p.byOwner[SharedPositions.tag("_owner1")] = 17
        p.byOwner[SharedPositions.tag("_owner2")] = 4
        let token = SyncToken.shared(f.dev.core.signer, shared, p)
        let read = try SyncToken.readShared(f.dev.core.signer, token, shared)
        #expect(read == p && read.position(of: "_owner1") == 17 && read.position(of: "_someoneElse") == 0)
        let other = DatabaseID(scope: .shared, ownerRecordName: Fixture.alice.userRecordName)
        expectError(.badRequest) { try SyncToken.readShared(f.dev.core.signer, token, other) }
        expectError(.badRequest) { try SyncToken.readShared(f.dev.core.signer, String(token.dropLast(2)), shared) }
    }
}
