import Foundation
import StratusKit
import Testing

/// Zones as CloudKit treats them, as an app's own tests meet them.
@Suite struct ZoneRulesTests {
    /// Records saved into a zone that does not exist fail one by one with `.zoneNotFound` (the per-record block
    /// sees each, the operation ends in a partial failure), so the app's handling creates the zone and saves again.
    @Test func savingIntoAMissingZoneFailsEachRecordWithZoneNotFound() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = CKRecordZone.ID(zoneName: "NotYet")
        let records = (0..<3).map { i -> CKRecord in
            let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "i\(i)", zoneID: zone))
            r["n"] = i
            return r
        }
        let op = CKModifyRecordsOperation(recordsToSave: records, recordIDsToDelete: nil)
        let perRecord = Collected<(String, CKError.Code?)>()
        let ended = Collected<Result<Void, any Error>>()
        op.perRecordSaveBlock = { id, result in
            if case .failure(let e) = result { perRecord.append((id.recordName, (e as? CKError)?.code)) } else { perRecord.append((id.recordName, nil)) }
        }
        op.modifyRecordsResultBlock = { ended.append($0) }
        await KitFixture.run(op, on: db)
        #expect(perRecord.all.map(\.0).sorted() == ["i0", "i1", "i2"])
        #expect(perRecord.all.allSatisfy { $0.1 == .zoneNotFound })
        guard case .failure(let e as CKError) = ended.all.first else { Issue.record("the operation did not fail"); return }
        #expect(e.code == .partialFailure)
        #expect(e.partialErrorsByItemID?.count == 3)
        #expect((e.partialErrorsByItemID?[records[0].recordID] as? CKError)?.code == .zoneNotFound)

        // save(_:) throws the record's own error; the app creates the zone and saves again.
        do {
            _ = try await db.save(records[0])
            Issue.record("a save into a missing zone succeeded")
        } catch let e as CKError {
            #expect(e.code == .zoneNotFound)
        }
        _ = try await db.save(CKRecordZone(zoneID: zone))
        let (saves, _) = try await db.modifyRecords(saving: records, deleting: [])
        #expect(saves.values.allSatisfy { (try? $0.get()) != nil })
    }

    /// Apple's documentation of `deleteRecordZone(withID:)`: "This method throws an error if the request fails, such
    /// as when the zone does not exist on the server".
    @Test func deletingAZoneThatDoesNotExistThrows() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        do {
            try await db.deleteRecordZone(withID: CKRecordZone.ID(zoneName: "Never"))
            Issue.record("deleting a missing zone succeeded")
        } catch let e as CKError {
            #expect(e.code == .zoneNotFound)
        }
    }

    /// "CloudKit doesn't support syncing the default zone" (Apple's documentation of `CKFetchRecordChangesOperation`'s
    /// `init(recordZoneID:previousServerChangeToken:)`); the default zone "does not have any special capabilities …
    /// you cannot use a CKFetchRecordChangesOperation object on records in the default zone" (`CKRecordZone.default()`).
    /// Records there are never reported by database changes, and asking for its changes is refused.
    @Test func thePrivateDefaultZoneIsNotSynced() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let loose = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "loose"))
        loose["text"] = "in the default zone"
        _ = try await db.save(loose)
        let custom = CKRecordZone(zoneName: "Notes")
        _ = try await db.save(custom)
        #expect(CKRecordZone.default().capabilities.isEmpty)
        #expect(custom.capabilities.contains(.fetchChanges))

        let changes = try await db.databaseChanges(since: nil)
        #expect(changes.modifications.map(\.zoneID.zoneName) == ["Notes"])
        do {
            _ = try await db.recordZoneChanges(inZoneWith: .default, since: nil)
            Issue.record("the default zone's changes were fetched")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }
        // The record is there all the same, for fetches and queries.
        #expect(try await db.record(for: loose.recordID)["text"] as? String == "in the default zone")
    }
}
