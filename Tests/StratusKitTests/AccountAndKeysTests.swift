import Foundation
import StratusKit
import StratusModel
import Testing

/// `CKAccountChanged` and `CKErrorUserDidResetEncryptedDataKey`, as apps written for CloudKit handle them.
@Suite(.serialized) struct AccountAndKeysTests {
    /// Counts `CKAccountChanged` posts while alive.
    final class Observer: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        private var token: (any NSObjectProtocol)?
        init() {
            token = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil, queue: nil) { [weak self] _ in
                guard let self else { return }
                self.lock.lock(); self.count += 1; self.lock.unlock()
            }
        }
        var posts: Int { lock.lock(); defer { lock.unlock() }; return count }
        deinit { if let token { NotificationCenter.default.removeObserver(token) } }
    }

    @Test func signingInAndLosingTheSessionPostCKAccountChanged() async throws {
        let f = try await KitFixture()
        let observer = Observer()
        let container = try await CKContainer.signInAsTestUser(identifier: f.container.rawValue, configuration: f.configuration(.none))
        // Other suites sign in at the same time and post too: counts only grow here.
        #expect(observer.posts >= 1, "signing in changes the account")
        let token = try #require(container.webAuthToken)
        _ = try await container.userRecordID()
        let before = observer.posts
        try f.app.store.accounts.revokeWebAuthToken(token)
        for _ in 0..<2 {
            do {
                _ = try await container.privateCloudDatabase.allRecordZones()
                Issue.record("a revoked session still answered")
            } catch let e as CKError {
                #expect(e.code == .notAuthenticated)
            }
        }
        #expect(observer.posts > before, "the session's end changes the account")
    }

    /// A zone deleted by the user's encrypted-data reset: `.zoneNotFound` whose `userInfo` says so, so the app
    /// uploads what it kept; a zone that merely does not exist says nothing of the kind.
    @Test func aZoneLostToAnEncryptedDataResetSaysSo() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Secrets"))
        let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n", zoneID: zone.zoneID))
        note.encryptedValues["text"] = "mine"
        _ = try await db.save(note)
        _ = try f.app.store.environment(f.container, .development).zones.purgeUserData(KitFixture.alice.userRecordName, reason: .encryptedDataReset)
        do {
            _ = try await db.save(note)
            Issue.record("a save into the reset zone succeeded")
        } catch let e as CKError {
            #expect(e.code == .zoneNotFound)
            #expect((e.userInfo[CKErrorUserDidResetEncryptedDataKey] as? NSNumber)?.boolValue == true)
        }
        do {
            _ = try await db.save(CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "m", zoneID: CKRecordZone.ID(zoneName: "Never"))))
            Issue.record("a save into a missing zone succeeded")
        } catch let e as CKError {
            #expect(e.code == .zoneNotFound)
            #expect(e.userInfo[CKErrorUserDidResetEncryptedDataKey] == nil)
        }
    }
}
