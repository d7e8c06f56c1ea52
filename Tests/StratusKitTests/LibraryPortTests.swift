import Foundation
import StratusKit
import Testing

/// What open-source CloudKit libraries (sync sessions, record coders, sync engines, sharing queues) need of
/// StratusKit to build and run with only their import changed, each against the live server.
@Suite struct LibraryPortTests {
    /// Apple's `CKError.Code` raw values, all of them (CKError.h, 26.0): libraries switch on them and store them.
    @Test func everyErrorCodeHasApplesRawValue() {
        let apple: [(CKError.Code, Int)] = [
            (.internalError, 1), (.partialFailure, 2), (.networkUnavailable, 3), (.networkFailure, 4), (.badContainer, 5),
            (.serviceUnavailable, 6), (.requestRateLimited, 7), (.missingEntitlement, 8), (.notAuthenticated, 9),
            (.permissionFailure, 10), (.unknownItem, 11), (.invalidArguments, 12), (.resultsTruncated, 13),
            (.serverRecordChanged, 14), (.serverRejectedRequest, 15), (.assetFileNotFound, 16), (.assetFileModified, 17),
            (.incompatibleVersion, 18), (.constraintViolation, 19), (.operationCancelled, 20), (.changeTokenExpired, 21),
            (.batchRequestFailed, 22), (.zoneBusy, 23), (.badDatabase, 24), (.quotaExceeded, 25), (.zoneNotFound, 26),
            (.limitExceeded, 27), (.userDeletedZone, 28), (.tooManyParticipants, 29), (.alreadyShared, 30),
            (.referenceViolation, 31), (.managedAccountRestricted, 32), (.participantMayNeedVerification, 33),
            (.serverResponseLost, 34), (.assetNotAvailable, 35), (.accountTemporarilyUnavailable, 36), (.participantAlreadyInvited, 37),
        ]
        for (code, raw) in apple {
            #expect(code.rawValue == raw && CKError.Code(rawValue: raw) == code, "\(code)")
            #expect(!code.description.hasPrefix("code"), "\(code) has a name in logs")
        }
        #expect(CKError.Code(rawValue: 38) == nil && CKError.Code(rawValue: 0) == nil)
    }

    /// NSString, NSNumber, NSArray, NSDate and NSData are record values (Apple's list), and so is CLLocation,
    /// reachable through `import StratusKit` on Linux: saved and fetched, they read back as the Swift values.
    @Test func foundationClassesAndLocationsAreRecordValues() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Trip", recordID: CKRecord.ID(recordName: "lisbon"))
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000.5)
        r["title"] = NSString(string: "Lisbon")
        r["stops"] = NSArray(array: ["Belém", "Alfama"])
        r["leaves"] = NSDate(timeIntervalSinceReferenceDate: start.timeIntervalSinceReferenceDate)
        r["ticket"] = NSData(bytes: [1, 2, 3, 250] as [UInt8], length: 4)
        r["nights"] = NSNumber(value: 4)
        let belem = CLLocation(latitude: 38.6916, longitude: -9.2160)
        r["where"] = belem
        r["route"] = [belem, CLLocation(coordinate: CLLocationCoordinate2D(latitude: 38.7139, longitude: -9.1334), altitude: 80,
                                        horizontalAccuracy: 5, verticalAccuracy: 3, timestamp: start)]
        _ = try await db.save(r)
        let back = try await db.record(for: r.recordID)
        #expect(back["title"] as? String == "Lisbon")
        #expect(back["stops"] as? [String] == ["Belém", "Alfama"])
        #expect((back["leaves"] as? Date).map { abs($0.timeIntervalSince(start)) < 0.001 } == true)
        #expect(back["ticket"] as? Data == Data([1, 2, 3, 250]))
        #expect(back["nights"] as? Int == 4)
        let place = try #require(back["where"] as? CLLocation)
        #expect(abs(place.coordinate.latitude - 38.6916) < 1e-9 && abs(place.coordinate.longitude + 9.2160) < 1e-9)
        let route = try #require(back["route"] as? [CLLocation])
        #expect(route.count == 2 && route[1].altitude == 80 && route[1].horizontalAccuracy == 5 && route[1].verticalAccuracy == 3)
        // Belém to Alfama is about 7.4 km along the great circle.
        #expect(abs(route[0].distance(from: route[1]) - 7_400) < 200, "\(route[0].distance(from: route[1]))")

        // Key-value coding's dictionaryWithValues(forKeys:), as record coders read a record: NSNull where no value.
        let values = back.dictionaryWithValues(forKeys: ["title", "nights", "nothing"])
        #expect(values["title"] as? String == "Lisbon" && values["nights"] as? Int == 4 && values["nothing"] is NSNull && values.count == 3)
    }

    /// Every new device of a user saves its database subscription: saved at once from many devices, each
    /// succeeds and one subscription is left, as CloudKit saves (create or replace).
    @Test func devicesSavingOneSubscriptionAtOnceAllSucceed() async throws {
        let f = try await KitFixture()
        let failures = await withTaskGroup(of: Int.self) { group in
            for device in 0..<8 {
                group.addTask {
                    let s = CKDatabaseSubscription(subscriptionID: "private-changes")
                    let info = CKSubscription.NotificationInfo()
                    info.shouldSendContentAvailable = true
                    info.alertBody = "device \(device)"
                    s.notificationInfo = info
                    do { _ = try await f.aliceContainer().privateCloudDatabase.save(s); return 0 } catch { return 1 }
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        let all = try await f.aliceContainer().privateCloudDatabase.allSubscriptions()
        #expect(all.map(\.subscriptionID) == ["private-changes"])
    }

    /// A library cascades a parent's deletion by querying its children: `parent == %@` with a record ID or a
    /// reference, and `parent IN %@`; and finds a shared root by `share == %@`.
    @Test func childrenAreFoundByTheirParent() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Lists")).zoneID
        let groceries = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "groceries", zoneID: zone))
        let chores = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "chores", zoneID: zone))
        var items: [CKRecord] = []
        for (name, list) in [("milk", groceries), ("bread", groceries), ("dishes", chores), ("loose", nil)] as [(String, CKRecord?)] {
            let item = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: name, zoneID: zone))
            item["title"] = name
            if let list { item.setParent(list) }
            items.append(item)
        }
        _ = try await db.modifyRecords(saving: [groceries, chores] + items, deleting: [])
        func names(_ predicate: NSPredicate) async throws -> [String] {
            let (results, _) = try await db.records(matching: CKQuery(recordType: "Item", predicate: predicate), inZoneWith: zone)
            return results.compactMap { try? $0.1.get().recordID.recordName }.sorted()
        }
        #expect(try await names(NSPredicate(format: "parent == %@", groceries.recordID)) == ["bread", "milk"])
        #expect(try await names(NSPredicate(format: "parent == %@", CKRecord.Reference(recordID: chores.recordID, action: .none))) == ["dishes"])
        #expect(try await names(NSPredicate(format: "parent IN %@", NSArray(array: [groceries.recordID, chores.recordID]))) == ["bread", "dishes", "milk"])
        #expect(try await names(NSPredicate(format: "parent == %@ AND title == %@", groceries.recordID, "milk")) == ["milk"])

        let root = try await db.record(for: groceries.recordID)
        let share = CKShare(rootRecord: root)
        let saved = try await db.modifyRecords(saving: [root, share], deleting: [])
        #expect(saved.saveResults.values.allSatisfy { (try? $0.get()) != nil }, "\(saved.saveResults)")
        let (shared, _) = try await db.records(matching: CKQuery(recordType: "List", predicate: NSPredicate(format: "share == %@", share.recordID)), inZoneWith: zone)
        #expect(shared.compactMap { try? $0.1.get().recordID.recordName } == ["groceries"])
    }
}
