import Foundation
import StratusKit
import StratusModel
import StratusServer
import StratusStore
import Testing

/// The lab: faults that hit where real ones do, reached through an app's own CloudKit code.
@Suite(.serialized) struct FaultLabTests {
    func fault(_ f: KitFixture, _ operation: String, _ kind: Fault.Kind, where stage: Fault.Stage = .before, count: Int = 1,
               configure: (inout Fault) -> Void = { _ in }) throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var fault = Fault(container: f.container, environment: .development, operation: operation, kind: kind, remaining: count, probability: nil,
                          createdAt: now, expiresAt: now + 600_000)
        fault.stage = stage
        configure(&fault)
        try f.app.store.faults.addFault(fault)
    }

    @Test func aSaveWhoseAnswerIsLostLeavesExactlyOneRecordAfterTheAppRetries() async throws {
        let f = try await KitFixture()
        try fault(f, "records/modify", .networkDrop, where: .afterCommit)
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Order", recordID: CKRecord.ID(recordName: "order-1"))
        r["total"] = 42
        do {
            _ = try await db.save(r)
            Issue.record("the answer was not lost")
        } catch let e as CKError {
            #expect(e.code == .networkFailure)
        }
        // The app retries its save; the record landed the first time, so CloudKit says it is there already.
        do {
            _ = try await db.save(r)
        } catch let e as CKError where e.code == .serverRecordChanged {
            #expect(e.serverRecord?["total"] as? Int == 42)
        }
        let all = try await db.records(matching: CKQuery(recordType: "Order", predicate: NSPredicate(value: true)))
        #expect(all.matchResults.count == 1)
    }

    @Test func aPerRecordFaultFailsOneRecordOfABatchAndSavesTheRest() async throws {
        let f = try await KitFixture()
        try fault(f, "records/modify", .zoneBusy, where: .perRecord) { $0.recordName = "b"; $0.retryAfter = 2 }
        let db = f.aliceContainer().privateCloudDatabase
        let records = ["a", "b", "c"].map { n -> CKRecord in
            let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: n))
            r["n"] = n
            return r
        }
        let (saves, _) = try await db.modifyRecords(saving: records, deleting: [], atomically: false)
        #expect((try? saves[records[0].recordID]?.get()) != nil)
        #expect((try? saves[records[2].recordID]?.get()) != nil)
        guard case .failure(let e as CKError)? = saves[records[1].recordID] else { Issue.record("b was saved"); return }
        #expect(e.code == .zoneBusy && e.retryAfterSeconds == 2)
        #expect((try? await db.record(for: records[1].recordID)) == nil)
    }

    @Test func theConflictLabHandsTheAppTheServerRecordItChose() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "shopping"))
        note["title"] = "milk"
        note["body"] = "from the store"
        _ = try await db.save(note)
        try fault(f, "records/modify", .conflict, where: .perRecord) {
            $0.recordName = "shopping"
            $0.serverFields = #"{"title":{"value":"milk and eggs (other device)","type":"STRING"}}"#
        }
        note["body"] = "from the market"
        do {
            _ = try await db.save(note)
            Issue.record("the save met no conflict")
        } catch let e as CKError where e.code == .serverRecordChanged {
            let server = try #require(e.serverRecord)
            #expect(server["title"] as? String == "milk and eggs (other device)")
            #expect(server["body"] as? String == "from the store")
            // The app's merge path: take the server's record, apply its own change, save.
            server["body"] = note["body"]
            let merged = try await db.save(server)
            #expect(merged["title"] as? String == "milk and eggs (other device)" && merged["body"] as? String == "from the market")
        }
        // The lab fires once: the next save goes through.
        let again = try await db.record(for: note.recordID)
        again["body"] = "anywhere"
        _ = try await db.save(again)
    }

    @Test func faultsScopedToOneUserLeaveOthersAlone() async throws {
        let f = try await KitFixture()
        let item = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i"))
        item["n"] = 1
        _ = try await f.aliceContainer().privateCloudDatabase.save(item)
        try fault(f, "records/query", .throttled, count: 5) { $0.user = KitFixture.bob.userRecordName; $0.retryAfter = 1 }
        let query = CKQuery(recordType: "Item", predicate: NSPredicate(value: true))
        _ = try await f.aliceContainer().privateCloudDatabase.records(matching: query)
        do {
            _ = try await f.bobContainer().privateCloudDatabase.records(matching: query)
            Issue.record("Bob's fault did not fire")
        } catch let e as CKError {
            #expect(e.code == .requestRateLimited && e.retryAfterSeconds == 1)
        }
    }

    @Test func recoveryFaultsPurgeZonesAndExpireTokens() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Notes"))
        let r = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone.zoneID))
        r["t"] = "x"
        _ = try await db.save(r)
        let token = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil).changeToken

        try fault(f, "records/changes", .changeTokenExpired) { $0.zone = "Notes" }
        do {
            _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: token)
            Issue.record("no CHANGE_TOKEN_EXPIRED")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }
        _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: token)

        try fault(f, "records/modify", .userDeletedZone) { $0.zone = "Notes" }
        r["t"] = "y"
        do {
            _ = try await db.save(r)
            Issue.record("no USER_DELETED_ZONE")
        } catch let e as CKError {
            #expect(e.code == .userDeletedZone)
        }
        let changes = try await db.databaseChanges(since: nil)
        #expect(changes.deletions.map(\.reason) == [.purged])
    }

    /// Every error kind at every place it can hit, seen by the app as CloudKit's code: before (nothing written),
    /// after-commit (written, answer replaced), per-record (that record alone fails).
    @Test func everyKindAtEveryPlace() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let expected: [(Fault.Kind, CKError.Code)] = [
            (.zoneBusy, .zoneBusy), (.throttled, .requestRateLimited), (.serviceUnavailable, .serviceUnavailable), (.internalError, .internalError),
            (.quotaExceeded, .quotaExceeded), (.limitExceeded, .limitExceeded), (.changeTokenExpired, .changeTokenExpired), (.zoneNotFound, .zoneNotFound),
        ]
        var n = 0
        for (kind, code) in expected {
            for stage in [Fault.Stage.before, .afterCommit, .perRecord] {
                n += 1
                let name = "r\(n)", other = "o\(n)"
                try fault(f, "records/modify", kind, where: stage) { if stage == .perRecord { $0.recordName = name } }
                let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name))
                r["n"] = n
                let o = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: other))
                o["n"] = n
                var seen: CKError.Code?
                do {
                    let (saves, _) = try await db.modifyRecords(saving: [r, o], deleting: [], atomically: false)
                    if case .failure(let e as CKError)? = saves[r.recordID] { seen = e.code }
                    #expect((try? saves[o.recordID]?.get()) != nil, "\(kind) \(stage): the other record")
                } catch let e as CKError {
                    seen = e.code
                }
                #expect(seen == code, "\(kind.rawValue) \(stage.rawValue)")
                let landed = (try? await db.record(for: r.recordID)) != nil
                #expect(landed == (stage == .afterCommit), "\(kind.rawValue) \(stage.rawValue): written \(landed)")
            }
        }
    }
}
