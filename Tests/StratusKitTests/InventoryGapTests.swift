import Foundation
import StratusKit
import Testing

/// What the conformance inventory (Tests/StratusKitConformanceTests) found missing beyond the list, each
/// used as an app uses it, against a real server.
@Suite(.serialized) struct InventoryGapTests {
    @Test func theCurrentUserRecordOperationFetchesTheUsersRecord() async throws {
        let f = try await KitFixture()
        let alice = f.aliceContainer()
        let operation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation()
        let fetched = Locked<[CKRecord]>([])
        let progress = Locked<[Double]>([])
        operation.perRecordProgressBlock = { _, p in progress.mutate { $0.append(p) } }
        operation.perRecordResultBlock = { _, result in if let r = try? result.get() { fetched.mutate { $0.append(r) } } }
        let done = Locked(false)
        operation.fetchRecordsResultBlock = { _ in done.mutate { $0 = true } }
        alice.publicCloudDatabase.add(operation)
        await eventually("the operation finishes", within: 30) { done.value }
        #expect(fetched.value.map(\.recordType) == [CKRecord.SystemType.userRecord])
        #expect(fetched.value.first?.recordID == (try await alice.userRecordID()))
        #expect(progress.value == [1])
    }

    @Test func aLongLivedOperationIsFoundByItsIDWhileItRuns() async throws {
        let f = try await KitFixture()
        let alice = f.aliceContainer()
        let record = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
        record["title"] = "kept"
        _ = try await alice.privateCloudDatabase.save(record)
        let operation = CKFetchRecordsOperation(recordIDs: [record.recordID])
        operation.configuration.isLongLived = true
        let persisted = Locked(false), seen = Locked<[CKOperation.ID]>([]), done = Locked(false)
        operation.longLivedOperationWasPersistedBlock = { persisted.mutate { $0 = true } }
        operation.perRecordResultBlock = { _, _ in
            alice.fetchAllLongLivedOperationIDs { ids, _ in seen.mutate { $0 = ids ?? [] } }
        }
        operation.fetchRecordsResultBlock = { _ in done.mutate { $0 = true } }
        alice.privateCloudDatabase.add(operation)
        await eventually("the operation finishes", within: 30) { done.value }
        #expect(persisted.value)
        #expect(seen.value == [operation.operationID])
        // The operation leaves the registry as it finishes, which may be just after its result block has run.
        let after = Locked<CKError.Code?>(nil)
        await eventually("the finished operation is no longer found", within: 30) {
            alice.fetchLongLivedOperation(withID: operation.operationID) { _, error in after.mutate { $0 = (error as? CKError)?.code } }
            return after.value == .unknownItem
        }
        #expect(after.value == .unknownItem)
    }

    @Test func aWebAuthTokenIsFetchedForAWebService() async throws {
        let f = try await KitFixture()
        let alice = f.aliceContainer()
        let operation = CKFetchWebAuthTokenOperation(apiToken: f.apiToken)
        let token = Locked<String?>(nil)
        operation.fetchWebAuthTokenResultBlock = { result in token.mutate { $0 = try? result.get() } }
        alice.privateCloudDatabase.add(operation)
        await eventually("a token arrives", within: 30) { token.value != nil }
        #expect(token.value == alice.webAuthToken)
    }

    @Test func subscriptionsAreFetchedByIDAndKeepTheirTitleSubtitleAndCategory() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let subscription = CKDatabaseSubscription(subscriptionID: "everything")
        let info = CKSubscription.NotificationInfo()
        info.title = "Notes"
        info.subtitleLocalizationKey = "NOTES_CHANGED"
        info.subtitleLocalizationArgs = ["title"]
        info.category = "NOTE_ACTIONS"
        info.shouldSendMutableContent = true
        subscription.notificationInfo = info
        _ = try await db.save(subscription)
        let found = try await db.subscriptions(for: ["everything", "missing"])
        let back = try #require(try found["everything"]?.get().notificationInfo)
        #expect(back.title == "Notes" && back.subtitleLocalizationKey == "NOTES_CHANGED" && back.subtitleLocalizationArgs == ["title"])
        #expect(back.category == "NOTE_ACTIONS" && back.shouldSendMutableContent)
        #expect((found["missing"].map { r in (try? r.get()) == nil }) == true)

        // A notification carries them in `aps`, and CKNotification reads them, with the subscription's owner.
        let note = CKNotification(fromRemoteNotificationDictionary: [
            "aps": ["alert": ["title": "Notes", "subtitle-loc-key": "NOTES_CHANGED", "subtitle-loc-args": ["title"]], "category": "NOTE_ACTIONS"],
            "ck": ["cid": f.container.rawValue, "nid": "n", "ckuserid": "_abc", "met": ["sid": "everything", "dbs": 2]],
        ])
        #expect(note?.title == "Notes" && note?.subtitleLocalizationKey == "NOTES_CHANGED" && note?.category == "NOTE_ACTIONS")
        #expect(note?.subscriptionOwnerUserRecordID?.recordName == "_abc")
    }

    @Test func sharingSpellingsAppsUse() async throws {
        let f = try await KitFixture()
        let alice = f.aliceContainer()
        let root = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "groceries", zoneID: CKRecordZone.ID(zoneName: "Lists")))
        root["title"] = "Groceries"
        root["secret"] = "not asked for"
        // Before it is saved, a share's owner is the current user, as in CloudKit.
        let share = CKShare(rootRecord: root, shareID: CKRecord.ID(recordName: "groceries-share", zoneID: root.recordID.zoneID))
        #expect(share.owner.role == .owner && share.owner.userIdentity.userRecordID?.recordName == CKCurrentUserDefaultName)
        share.publicPermission = .readOnly
        _ = try await alice.privateCloudDatabase.save(CKRecordZone(zoneID: root.recordID.zoneID))
        let (saved, _) = try await alice.privateCloudDatabase.modifyRecords(saving: [root, share], deleting: [])
        let url = try #require((try saved[share.recordID]?.get() as? CKShare)?.url)
        #expect(share.recordID.recordName == "groceries-share")

        let bob = f.bobContainer()
        let metadata = try await bob.shareMetadata(for: url, shouldFetchRootRecord: true, rootRecordDesiredKeys: ["title"])
        #expect(metadata.rootRecord?["title"] as? String == "Groceries")
        #expect(metadata.rootRecord?["secret"] == nil)
        #expect(metadata.ownerIdentity.userRecordID != nil)
        let accepted = try await bob.accept([metadata])
        #expect(accepted.keys.first === metadata)
        #expect((try accepted[metadata]?.get())?.recordID.recordName == "groceries-share")

        // Phone numbers find nobody here: CloudKit's answer for a number no user has.
        await #expect { try await alice.shareParticipant(forPhoneNumber: "+15555550100") } throws: { ($0 as? CKError)?.code == .unknownItem }
        let infos = CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["bob@example.com"])
            + CKUserIdentity.LookupInfo.lookupInfos(with: [CKRecord.ID(recordName: KitFixture.bob.userRecordName)])
            + CKUserIdentity.LookupInfo.lookupInfos(withPhoneNumbers: ["+15555550100"])
        let participants = try await alice.shareParticipants(for: infos)
        #expect(participants.count == 3)
        #expect(participants.values.filter { (try? $0.get()) != nil }.count == 2)
    }

    @Test func recordsAnswerKeyValueCodingTokensAndSystemFieldKeys() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        for (i, title) in ["First note, about Lisbon", "Second: Porto & Lisbon"].enumerated() {
            let r = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n\(i)"))
            r.setValue(title, forKey: "title")
            r.setValue(i, forKey: "order")
            #expect(r.value(forKey: "title") as? String == title)
            _ = try await db.save(r)
            try await Task.sleep(for: .milliseconds(20))
        }
        let r = CKRecord(recordType: "Note")
        r["title"] = "Lisbon, lisbon and PORTO"
        #expect(r.allTokens() == ["lisbon", "and", "porto"])
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: CKRecord.SystemFieldKey.creationDate, ascending: false)]
        let (matches, _) = try await db.records(matching: query)
        #expect(matches.map(\.0.recordName) == ["n1", "n0"])
    }
}

/// A value shared with operation blocks, which run on the operation's own thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
