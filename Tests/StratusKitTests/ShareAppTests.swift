import Foundation
import StratusKit
import StratusModel
import Testing

/// Sharing as apps written for CloudKit do it: a titled share with a thumbnail, a zone share found again through
/// `CKRecordZone.share`, and the share operations and completion-handler forms.
@Suite struct ShareAppTests {
    /// Alice (the fixture's) shares; Bob has an account and a container.
    static func bob(_ f: KitFixture) throws -> (CKContainer, ContainerUser) {
        let store = f.app.store
        let bob = try store.accounts.createUser(container: f.container, email: "bob.s@example.com", password: "correct horse battery", firstName: "Bob")
        let token = try store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: bob.userRecordName)
        return (CKContainer(identifier: f.container.rawValue, configuration: f.configuration(.webAuthToken(token))), bob)
    }

    @Test func aShareKeepsItsTitleAndThumbnailForEveryoneWhoOpensIt() async throws {
        let f = try await KitFixture()
        let (bobC, _) = try Self.bob(f)
        let alice = f.aliceContainer()
        let zone = try await alice.privateCloudDatabase.save(CKRecordZone(zoneName: "Recipes"))
        let recipe = CKRecord(recordType: "Recipe", recordID: CKRecord.ID(recordName: "pot-roast", zoneID: zone.zoneID))
        recipe["name"] = "Pot Roast"
        let thumbnail = Data((0..<2048).map { UInt8($0 % 251) })
        let share = CKShare(rootRecord: recipe)
        share[CKShare.SystemFieldKey.title] = "Pot Roast"
        share[CKShare.SystemFieldKey.thumbnailImageData] = thumbnail
        share[CKShare.SystemFieldKey.shareType] = "com.example.recipe"
        share.publicPermission = .readOnly
        let (saves, _) = try await alice.privateCloudDatabase.modifyRecords(saving: [recipe, share], deleting: [])
        let saved = try #require(try saves[share.recordID]?.get() as? CKShare)
        #expect(saved[CKShare.SystemFieldKey.title] as? String == "Pot Roast")
        #expect(saved[CKShare.SystemFieldKey.thumbnailImageData] as? Data == thumbnail)

        // The owner fetches it again; a later edit keeps what it does not change.
        let fetched = try #require(try await alice.privateCloudDatabase.record(for: share.recordID) as? CKShare)
        #expect(fetched[CKShare.SystemFieldKey.shareType] as? String == "com.example.recipe")
        fetched[CKShare.SystemFieldKey.title] = "Sunday Pot Roast"
        let renamed = try #require(try await alice.privateCloudDatabase.save(fetched) as? CKShare)
        #expect(renamed[CKShare.SystemFieldKey.title] as? String == "Sunday Pot Roast" && renamed[CKShare.SystemFieldKey.thumbnailImageData] as? Data == thumbnail)

        // Whoever opens the link sees the title and thumbnail before accepting (CKFetchShareMetadataOperation).
        let url = try #require(saved.url)
        let op = CKFetchShareMetadataOperation(shareURLs: [url])
        op.shouldFetchRootRecord = true
        let metadata = Collected<CKShare.Metadata>(), ended = Collected<Result<Void, any Error>>()
        op.perShareMetadataResultBlock = { _, r in if case .success(let m) = r { metadata.append(m) } }
        op.fetchShareMetadataResultBlock = { ended.append($0) }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in op.completionBlock = { c.resume() }; bobC.add(op) }
        let m = try #require(metadata.all.first)
        if case .failure(let e) = ended.all.first { Issue.record("\(e)") }
        #expect(m.share[CKShare.SystemFieldKey.title] as? String == "Sunday Pot Roast")
        #expect(m.share[CKShare.SystemFieldKey.thumbnailImageData] as? Data == thumbnail)
        #expect(m.rootRecord?["name"] as? String == "Pot Roast")

        // CKAcceptSharesOperation joins it; the participant's shared database then holds the zone.
        let accept = CKAcceptSharesOperation(shareMetadatas: [m])
        let accepted = Collected<CKShare>()
        accept.perShareResultBlock = { _, r in if case .success(let s) = r { accepted.append(s) } }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in accept.completionBlock = { c.resume() }; bobC.add(accept) }
        #expect(accepted.all.first?[CKShare.SystemFieldKey.title] as? String == "Sunday Pot Roast")
        #expect(try await bobC.sharedCloudDatabase.allRecordZones().map(\.zoneID.zoneName) == ["Recipes"])
    }

    /// "Does this zone have a share yet?": the zone says so (`CKRecordZone.share`), so the app does not create a
    /// second one and hands out the one it saved.
    @Test func aZoneShareIsFoundAgainThroughTheZone() async throws {
        let f = try await KitFixture()
        let (bobC, bob) = try Self.bob(f)
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Household"))
        #expect(zone.share == nil)
        let share = CKShare(recordZoneID: zone.zoneID)
        share[CKShare.SystemFieldKey.title] = "Household"
        let participants = CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "bob.s@example.com")])
        let found = Collected<CKShare.Participant>()
        participants.perShareParticipantResultBlock = { _, r in if case .success(let p) = r { found.append(p) } }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in participants.completionBlock = { c.resume() }; f.aliceContainer().add(participants) }
        let participant = try #require(found.all.first)
        participant.permission = .readWrite
        share.addParticipant(participant)
        let saved = try #require(try await db.modifyRecords(saving: [share], deleting: []).saveResults[share.recordID]?.get() as? CKShare)

        // On another launch: the zone, fetched, names its share; the share, fetched by that ID, is the one saved.
        let again = try await db.recordZone(for: zone.zoneID)
        let reference = try #require(again.share)
        #expect(reference.recordID.recordName == CKRecordNameZoneWideShare)
        #expect(try await db.allRecordZones().first { $0.zoneID == zone.zoneID }?.share?.recordID == reference.recordID)
        let fetched = try #require(try await db.record(for: reference.recordID) as? CKShare)
        #expect(fetched.url == saved.url && fetched[CKShare.SystemFieldKey.title] as? String == "Household")

        // The completion-handler forms apps written before async/await use.
        let url = try #require(saved.url)
        let metadata: CKShare.Metadata = try await withCheckedThrowingContinuation { k in
            bobC.fetchShareMetadata(with: url) { m, e in if let m { k.resume(returning: m) } else { k.resume(throwing: e ?? CKError(.internalError)) } }
        }
        let joined: CKShare = try await withCheckedThrowingContinuation { k in
            bobC.accept(metadata) { s, e in if let s { k.resume(returning: s) } else { k.resume(throwing: e ?? CKError(.internalError)) } }
        }
        #expect(joined.currentUserParticipant?.userIdentity.userRecordID?.recordName == bob.userRecordName)
        let shared = try #require(try await bobC.sharedCloudDatabase.allRecordZones().first)
        #expect(shared.share?.recordID.recordName == CKRecordNameZoneWideShare)
    }
}
