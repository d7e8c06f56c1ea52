import Foundation
import StratusKit
import StratusModel
import StratusStore
import Testing

@Suite(.serialized) struct NotificationAndSharingTests {
    @Test func aQuerySubscriptionsNotificationArrivesWithItsRecordFields() async throws {
        let f = try await KitFixture()
        let alice = f.aliceContainer()
        let subscription = CKQuerySubscription(recordType: "Alert", predicateFormat: "level >= %@", 3, subscriptionID: "high-alerts",
                                               options: [.firesOnRecordCreation, .firesOnRecordUpdate])
        let info = CKSubscription.NotificationInfo()
        info.alertBody = "A high alert"
        info.desiredKeys = ["title", "level"]
        subscription.notificationInfo = info
        _ = try await alice.publicCloudDatabase.save(subscription)
        let listed = try await alice.publicCloudDatabase.allSubscriptions()
        #expect(listed.map(\.subscriptionID) == ["high-alerts"])
        #expect((listed.first as? CKQuerySubscription)?.querySubscriptionOptions.contains(.firesOnRecordCreation) == true)

        // Alice's app listens; Bob writes until one arrives (the stream starts at "now", so early writes may
        // precede it).
        let listener = Task { () -> CKQueryNotification? in
            for try await n in alice.notifications {
                if let q = n as? CKQueryNotification { return q }
            }
            return nil
        }
        let bob = f.bobContainer().publicCloudDatabase
        let writer = Task {
            var i = 0
            while !Task.isCancelled {
                let r = CKRecord(recordType: "Alert", recordID: CKRecord.ID(recordName: "alert-\(i)"))
                r["title"] = "Disk full"
                r["level"] = 5
                r["detail"] = "not asked for"
                _ = try? await bob.save(r)
                i += 1
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        let timeout = Task { try await Task.sleep(for: .seconds(20)); listener.cancel() }
        let n = try await listener.value
        writer.cancel()
        timeout.cancel()
        let q = try #require(n)
        #expect(q.subscriptionID == "high-alerts")
        #expect(q.queryNotificationReason == .recordCreated)
        #expect(q.recordFields?["title"] as? String == "Disk full")
        #expect((q.recordFields?["level"] as? NSNumber)?.intValue == 5)
        #expect(q.recordFields?["detail"] == nil)
        #expect(q.alertBody == "A high alert")
        #expect(q.recordID?.recordName.hasPrefix("alert-") == true)

        // The dictionary form reads the same.
        let d: [AnyHashable: Any] = ["aps": ["alert": ["body": "x"]], "ck": ["nid": "n1", "met": ["sid": "db", "dbs": 2]]]
        let generic = CKNotification(fromRemoteNotificationDictionary: d)
        #expect(generic is CKDatabaseNotification)
        #expect(generic?.subscriptionID == "db")
        #expect(CKNotification(fromRemoteNotificationDictionary: ["aps": [:]]) == nil)

        try await alice.publicCloudDatabase.deleteSubscription(withID: "high-alerts")
        #expect(try await alice.publicCloudDatabase.allSubscriptions().isEmpty)
    }

    /// An app on an Apple device registers the token APNs gave it; the server keeps it for the signed-in user
    /// (pushing to it is APNsPushTests's), and a token that is not one is an error the app sees.
    @Test func anAppRegistersItsAPNsDeviceToken() async throws {
        let f = try await KitFixture()
        let token = Data((0..<32).map { UInt8($0) })
        try await f.aliceContainer().registerForRemoteNotifications(deviceToken: token)
        let devices = try f.app.store.environment(f.container, .development).apns.apnsDevices()
        #expect(devices.map(\.token) == [token.map { String(format: "%02x", $0) }.joined()])
        #expect(devices.first?.userRecordName == KitFixture.alice.userRecordName && devices.first?.apnsEnvironment == .development)
        await #expect(throws: CKError.self) { try await f.aliceContainer().registerForRemoteNotifications(deviceToken: Data([1, 2])) }
    }

    @Test func aShareBetweenTwoUsersEndsInTheParticipantsSharedDatabase() async throws {
        let f = try await KitFixture()
        // Bob has an account, found by his address.
        try f.app.store.accounts.createUser(container: f.container, email: "bob@example.com", password: "correct horse battery", firstName: "Bob", lastName: "Baker")
        let bobUser = try #require(try f.app.store.accounts.user(container: f.container, email: "bob@example.com"))
        let bobToken = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: bobUser.userRecordName)
        let aliceC = f.aliceContainer()
        let bobC = CKContainer(identifier: f.container.rawValue, configuration: f.configuration(.webAuthToken(bobToken)))
        let alice = aliceC.privateCloudDatabase

        let zone = try await alice.save(CKRecordZone(zoneName: "Trips"))
        let trip = CKRecord(recordType: "Trip", recordID: CKRecord.ID(recordName: "lisbon", zoneID: zone.zoneID))
        trip["name"] = "Lisbon"
        let stop = CKRecord(recordType: "Stop", recordID: CKRecord.ID(recordName: "belem", zoneID: zone.zoneID))
        stop["name"] = "Belém"
        stop.setParent(trip)
        let share = CKShare(rootRecord: trip)
        share.publicPermission = .none
        let participant = try await aliceC.shareParticipant(forEmailAddress: "bob@example.com")
        participant.permission = .readWrite
        share.addParticipant(participant)
        let (saves, _) = try await alice.modifyRecords(saving: [trip, stop, share], deleting: [])
        let savedShare = try #require(try saves[share.recordID]?.get() as? CKShare)
        let url = try #require(savedShare.url)
        #expect(share.url == nil, "the share passed in is left as it was; the saved one is the server's")

        // Bob opens the link and accepts.
        let metadata = try await bobC.shareMetadata(for: url)
        #expect(metadata.hierarchicalRootRecordID?.recordName == "lisbon")
        #expect(metadata.participantPermission == .readWrite)
        _ = try await bobC.accept(metadata)

        let sharedZones = try await bobC.sharedCloudDatabase.allRecordZones()
        let sharedZone = try #require(sharedZones.first { $0.zoneID.zoneName == "Trips" })
        #expect(sharedZone.zoneID.ownerName == KitFixture.alice.userRecordName)
        let (mods, _, _, _) = try await bobC.sharedCloudDatabase.recordZoneChanges(inZoneWith: sharedZone.zoneID, since: nil)
        let names = Set(mods.values.compactMap { try? $0.get().record["name"] as? String })
        #expect(names.isSuperset(of: ["Lisbon", "Belém"]))

        // Read-write: Bob edits the trip in his shared database, Alice sees it in her private one.
        let onBob = try await bobC.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "lisbon", zoneID: sharedZone.zoneID))
        onBob["name"] = "Lisbon and Sintra"
        _ = try await bobC.sharedCloudDatabase.save(onBob)
        #expect(try await alice.record(for: trip.recordID)["name"] as? String == "Lisbon and Sintra")
    }

    /// `discoverAllIdentities` (deprecated in CloudKit, offered here, so it must work): the discoverable users who
    /// share with the caller, by name, never with an email address; nobody else.
    @Test func discoverAllIdentitiesFindsTheDiscoverablePeopleWhoShareWithTheCaller() async throws {
        let f = try await KitFixture()
        let store = f.app.store
        let alice = try store.accounts.createUser(container: f.container, email: "alice.d@example.com", password: "correct horse battery", firstName: "Alice", discoverable: true)
        let bob = try store.accounts.createUser(container: f.container, email: "bob.d@example.com", password: "correct horse battery", firstName: "Bob", lastName: "Baker", discoverable: true)
        _ = try store.accounts.createUser(container: f.container, email: "carol.d@example.com", password: "correct horse battery", firstName: "Carol", discoverable: true)
        func container(_ u: ContainerUser) throws -> CKContainer {
            CKContainer(identifier: f.container.rawValue, configuration: f.configuration(.webAuthToken(try store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: u.userRecordName))))
        }
        let aliceC = try container(alice), bobC = try container(bob)
        func discovered(_ c: CKContainer) async throws -> [CKUserIdentity] {
            try await withCheckedThrowingContinuation { k in c.discoverAllIdentities { ids, error in if let error { k.resume(throwing: error) } else { k.resume(returning: ids ?? []) } } }
        }
        #expect(try await discovered(aliceC).isEmpty, "nobody shares with Alice yet")

        let zone = try await aliceC.privateCloudDatabase.save(CKRecordZone(zoneName: "Family"))
        let share = CKShare(recordZoneID: zone.zoneID)
        let participant = try await aliceC.shareParticipant(forEmailAddress: "bob.d@example.com")
        share.addParticipant(participant)
        let saved = try #require(try await aliceC.privateCloudDatabase.modifyRecords(saving: [share], deleting: []).saveResults[share.recordID]?.get() as? CKShare)
        _ = try await bobC.accept(try await bobC.shareMetadata(for: try #require(saved.url)))

        let found = try await discovered(aliceC)
        #expect(found.map { $0.userRecordID?.recordName } == [bob.userRecordName])
        #expect(found.first?.nameComponents?.givenName == "Bob")
        #expect(found.allSatisfy { $0.lookupInfo?.emailAddress == nil }, "no email address is handed out")
        #expect(try await discovered(bobC).map { $0.userRecordID?.recordName } == [alice.userRecordName])
    }
}
