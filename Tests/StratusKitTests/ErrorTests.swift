import Foundation
import StratusKit
import StratusModel
import StratusServer
import StratusStore
import Testing

/// Every failure reaches the app as a `CKError` with CloudKit's code — never a crash, never a hang.
@Suite(.serialized) struct ErrorTests {
    @Test func zoneBusyIsRetriedAfterRetryAfterSeconds() async throws {
        let f = try await KitFixture()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try f.app.store.faults.addFault(Fault(container: f.container, environment: .development, operation: "records/modify", kind: .zoneBusy,
                                       remaining: 1, probability: nil, retryAfter: 1, createdAt: now, expiresAt: now + 60_000))
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "busy"))
        r["v"] = 1
        // The app's retry loop, as CloudKit's guides write it.
        var attempts = 0
        var waited = 0.0
        while true {
            attempts += 1
            do {
                _ = try await db.save(r)
                break
            } catch let e as CKError where e.code == .zoneBusy || e.code == .requestRateLimited || e.code == .serviceUnavailable {
                let delay = try #require(e.retryAfterSeconds)
                waited += delay
                try await Task.sleep(for: .seconds(delay))
            }
            if attempts > 3 { Issue.record("still failing"); return }
        }
        #expect(attempts == 2)
        #expect(waited == 1)
        #expect(try await db.record(for: r.recordID)["v"] as? Int == 1)
    }

    @Test func aDroppedConnectionIsANetworkFailure() async throws {
        let f = try await KitFixture()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try f.app.store.faults.addFault(Fault(container: f.container, environment: .development, operation: "records/query", kind: .networkDrop,
                                       remaining: 1, probability: nil, createdAt: now, expiresAt: now + 60_000))
        let db = f.aliceContainer().privateCloudDatabase
        do {
            _ = try await db.records(matching: CKQuery(recordType: "Item", predicate: NSPredicate(value: true)))
            Issue.record("a dropped connection succeeded")
        } catch let e as CKError {
            #expect(e.code == .networkFailure || e.code == .networkUnavailable, "\(e)")
        }
    }

    @Test func anExpiredOrRevokedTokenIsNotAuthenticated() async throws {
        let f = try await KitFixture()
        let expired = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development,
                                                          userRecordName: KitFixture.alice.userRecordName, lifetime: -1)
        let c = CKContainer(identifier: f.container.rawValue, configuration: f.configuration(.webAuthToken(expired)))
        do {
            _ = try await c.privateCloudDatabase.record(for: CKRecord.ID(recordName: "x"))
            Issue.record("an expired token was accepted")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }
        #expect(try await c.accountStatus() == .noAccount)
        #expect(try await f.aliceContainer().accountStatus() == .available)
        #expect(try await f.aliceContainer().userRecordID().recordName == KitFixture.alice.userRecordName)

        var bad = f.configuration(.none)
        bad.apiToken = "not-a-token"
        do {
            _ = try await CKContainer(identifier: f.container.rawValue, configuration: bad).publicCloudDatabase.allRecordZones()
            Issue.record("a bad API token was accepted")
        } catch let e as CKError {
            #expect(e.code == .notAuthenticated)
        }
    }

    @Test func brokenServersGiveCKErrorsNotCrashesOrHangs() async throws {
        let cases: [(MisbehavingServer.Behaviour, Set<CKError.Code>)] = [
            (.answer(status: 200, contentType: "application/json", body: "{\"records\": [1, 2"), [.serverResponseLost]),
            (.answer(status: 200, contentType: "application/json", body: "[1, 2, 3]"), [.serverResponseLost]),
            (.answer(status: 502, contentType: "text/html", body: "<html>Bad Gateway</html>"), [.serviceUnavailable]),
            (.answer(status: 503, contentType: "application/json", body: "{\"serverErrorCode\":\"TRY_AGAIN_LATER\",\"reason\":\"x\",\"retryAfter\":4}"), [.serviceUnavailable]),
            (.cutOff, [.networkFailure, .serverResponseLost]),
            (.hang, [.networkFailure]),
        ]
        for (behaviour, codes) in cases {
            let server = try MisbehavingServer(behaviour)
            var config = CKContainer.Configuration(serverURL: server.url, apiToken: "t", credentials: .webAuthToken("w"), timeoutIntervalForRequest: 1.5)
            config.environment = .development
            let db = CKContainer(identifier: "iCloud.x", configuration: config).privateCloudDatabase
            let started = Date()
            do {
                _ = try await db.records(matching: CKQuery(recordType: "Item", predicate: NSPredicate(value: true)))
                Issue.record("\(behaviour) succeeded")
            } catch let e as CKError {
                #expect(codes.contains(e.code), "\(behaviour): \(e)")
                if case .answer(503, _, _) = behaviour { #expect(e.retryAfterSeconds == 4) }
            }
            #expect(Date().timeIntervalSince(started) < 10)
        }
        // Nothing listening at all.
        let closed = CKContainer(identifier: "iCloud.x", configuration: CKContainer.Configuration(serverURL: URL(string: "http://127.0.0.1:9")!, apiToken: "t"))
        do {
            _ = try await closed.publicCloudDatabase.allRecordZones()
            Issue.record("a closed port answered")
        } catch let e as CKError {
            #expect(e.code == .networkUnavailable || e.code == .networkFailure)
        }
    }

    @Test func aMissingConfigurationIsABadContainerThatSaysWhatIsMissing() async throws {
        let config = CKContainer.Configuration.fromEnvironment(["STRATUS_CONTAINER": "iCloud.x"])
        do {
            _ = try await CKContainer(identifier: "iCloud.x", configuration: config).publicCloudDatabase.allRecordZones()
            Issue.record("no configuration worked")
        } catch let e as CKError {
            #expect(e.code == .badContainer)
            #expect(e.localizedDescription.contains("STRATUS_URL"))
        }
    }
}

/// CloudKit's recovery codes as an app meets them (issue 25's contract, through StratusKit).
@Suite struct RecoveryCodeTests {
    @Test func tooManyOperationsAndTooLargeRecordsAreLimitExceededNotQuota() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        // CloudKit takes 400 items per operation; one more is LIMIT_EXCEEDED.
        let many = (0...400).map { i -> CKRecord in
            let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "many-\(i)"))
            r["v"] = i
            return r
        }
        do {
            _ = try await db.modifyRecords(saving: many, deleting: [])
            Issue.record("401 operations were accepted")
        } catch let e as CKError {
            #expect(e.code == .limitExceeded)
        }
        // The app's recovery: split and retry.
        let (first, _) = try await db.modifyRecords(saving: Array(many.prefix(400)), deleting: [])
        let (second, _) = try await db.modifyRecords(saving: Array(many.suffix(1)), deleting: [])
        #expect(first.count == 400 && second.count == 1)
        #expect((Array(first.values) + Array(second.values)).allSatisfy { (try? $0.get()) != nil })

        let big = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "big"))
        big["text"] = String(repeating: "x", count: 1_100_000)
        do {
            _ = try await db.save(big)
            Issue.record("a record over 1 MB was saved")
        } catch let e as CKError {
            #expect(e.code == .limitExceeded)
        }
    }

    @Test func aBatchSavingAndDeletingOneRecordIsRefusedAndWritesNothing() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let r = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "twice"))
        r["v"] = 1
        let other = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "bystander"))
        other["v"] = 2
        let op = CKModifyRecordsOperation(recordsToSave: [r, other], recordIDsToDelete: [r.recordID])
        let final = Collected<Result<Void, any Error>>()
        op.modifyRecordsResultBlock = { final.append($0) }
        await KitFixture.run(op, on: db)
        guard case .failure(let e as CKError) = final.all.first else { Issue.record("the batch was accepted"); return }
        #expect(e.code == .partialFailure)
        #expect((e.partialErrorsByItemID?[r.recordID] as? CKError)?.code == .invalidArguments)
        #expect((e.partialErrorsByItemID?[other.recordID] as? CKError)?.code == .batchRequestFailed)
        let after = try await db.records(for: [r.recordID, other.recordID])
        #expect(after.values.allSatisfy { (try? $0.get()) == nil })
    }
}

@Suite struct ChangeTokenExpiryTests {
    @Test func aTokenOlderThanTheRetentionIsChangeTokenExpired() async throws {
        // Tokens say when they were handed out to the second: a retention of 12 s keeps one good for 11 s at least,
        // room for the few requests below on a machine busy with the rest of the suite (4 s was not, in CI).
        let f = try await KitFixture { $0.notifications.changeTokenRetention = 12_000 }
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Inbox"))
        let zoneToken = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil).changeToken
        // Fresh, it goes on.
        _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: zoneToken)
        let dbToken = try await db.databaseChanges(since: nil).changeToken
        try await Task.sleep(for: .milliseconds(13_500))
        do {
            _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: zoneToken)
            Issue.record("an old zone token was continued")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }
        do {
            _ = try await db.databaseChanges(since: dbToken)
            Issue.record("an old database token was continued")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }
    }

    @Test func aTokenOfARecreatedZoneOrAnotherEnvironmentIsChangeTokenExpired() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Inbox")
        _ = try await db.save(zone)
        let r = CKRecord(recordType: "Mail", recordID: CKRecord.ID(recordName: "m1", zoneID: zone.zoneID))
        r["title"] = "hello"
        _ = try await db.save(r)
        let (_, _, token, _) = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)

        // The user deletes the zone and the app creates it again: the old token cannot go on.
        try await db.deleteRecordZone(withID: zone.zoneID)
        _ = try await db.save(zone)
        do {
            _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: token)
            Issue.record("a token of a deleted zone was continued")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }
        // The app's recovery: fetch from scratch.
        let fresh = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        #expect(fresh.modificationResultsByID.isEmpty)

        // A token from Production, replayed against Development.
        let prodToken = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .production, userRecordName: KitFixture.alice.userRecordName)
        let prodAPI = try f.app.store.credentials.createAPIToken(container: f.container, environment: .production, name: "prod").secret
        let prod = CKContainer(identifier: f.container.rawValue, configuration: CKContainer.Configuration(
            serverURL: f.serverURL, environment: .production, apiToken: prodAPI, credentials: .webAuthToken(prodToken))).privateCloudDatabase
        _ = try await prod.save(CKRecordZone(zoneName: "Inbox"))
        let (_, _, prodZoneToken, _) = try await prod.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        let prodDatabaseToken = try await prod.databaseChanges(since: nil).changeToken
        do {
            _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: prodZoneToken)
            Issue.record("another environment's zone token was accepted")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }
        do {
            _ = try await db.databaseChanges(since: prodDatabaseToken)
            Issue.record("another environment's database token was accepted")
        } catch let e as CKError {
            #expect(e.code == .changeTokenExpired)
        }

        // Something that is no token at all stays a client error.
        let garbage = try JSONDecoder().decode(CKServerChangeToken.self, from: Data(#""not-a-token""#.utf8))
        do {
            _ = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: garbage)
            Issue.record("garbage was accepted")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }
    }
}

@Suite struct PurgedZoneTests {
    @Test func anEncryptedDataResetReachesTheAppAsItsOwnReason() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        _ = try await db.save(CKRecordZone(zoneName: "Vault"))
        let token = try await db.databaseChanges(since: nil).changeToken
        try f.app.store.environment(f.container, .development).zones.purgeUserData(KitFixture.alice.userRecordName, reason: .encryptedDataReset)
        let reset = Collected<String>()
        let op = CKFetchDatabaseChangesOperation(previousServerChangeToken: token)
        op.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { reset.append($0.zoneName) }
        await KitFixture.run(op, on: db)
        #expect(reset.all == ["Vault"])
        #expect(try await db.databaseChanges(since: token).deletions.map(\.reason) == [.encryptedDataReset])
    }

    @Test func aPurgeReachesTheAppAsPurgedZonesAndUserDeletedZone() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let zone = CKRecordZone(zoneName: "Journal")
        _ = try await db.save(zone)
        let entry = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "e1", zoneID: zone.zoneID))
        entry["text"] = "dear diary"
        let loose = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "loose"))
        loose["text"] = "in the default zone"
        _ = try await db.modifyRecords(saving: [entry], deleting: [])
        _ = try await db.save(loose)
        let dbToken = try await db.databaseChanges(since: nil).changeToken

        // The user deletes the app's data (the console's "Delete this user's data", `stratus users purge`).
        #expect(try f.app.store.environment(f.container, .development).zones.purgeUserData(KitFixture.alice.userRecordName) == 2)

        // The sync pass hears that the zone was purged, not merely deleted.
        let purged = Collected<String>(), deleted = Collected<String>()
        let op = CKFetchDatabaseChangesOperation(previousServerChangeToken: dbToken)
        op.recordZoneWithIDWasPurgedBlock = { purged.append($0.zoneName) }
        op.recordZoneWithIDWasDeletedBlock = { deleted.append($0.zoneName) }
        await KitFixture.run(op, on: db)
        #expect(purged.all == ["Journal"])
        #expect(deleted.all.isEmpty)

        // Writing the cache back into the purged zone is refused as CloudKit refuses it.
        let stale = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "e2", zoneID: zone.zoneID))
        stale["text"] = "from the cache"
        do {
            _ = try await db.save(stale)
            Issue.record("a write into a purged zone succeeded")
        } catch let e as CKError {
            #expect(e.code == .userDeletedZone)
        }
        // The default zone was emptied too.
        #expect((try? await db.record(for: loose.recordID)) == nil)
        // The app may start again: it creates the zone.
        _ = try await db.save(zone)
        _ = try await db.save(stale)
        #expect(try await db.record(for: stale.recordID)["text"] as? String == "from the cache")
    }
}

@Suite struct EncryptedValuesTests {
    /// Encrypted values live in private (and shared) databases, as CloudKit allows: a subscription's notification
    /// to the owner's other device carries the plain fields it asked for and never the encrypted one.
    @Test func encryptedValuesRoundTripAndStayOutOfNotifications() async throws {
        let f = try await KitFixture()
        _ = try f.app.store.lifecycle.importSchema(try SchemaParser.parse("""
            DEFINE SCHEMA
                RECORD TYPE Diary (
                    "___recordID" REFERENCE QUERYABLE,
                    title STRING QUERYABLE,
                    secret ENCRYPTED STRING,
                    GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
                );
            """), into: f.container)
        let phone = f.aliceContainer(), laptop = f.aliceContainer().privateCloudDatabase
        let sub = CKQuerySubscription(recordType: "Diary", predicate: NSPredicate(value: true), subscriptionID: "diary", options: [.firesOnRecordCreation])
        let info = CKSubscription.NotificationInfo()
        info.desiredKeys = ["title", "secret"]
        sub.notificationInfo = info
        _ = try await phone.privateCloudDatabase.save(sub)
        let listener = Task { () -> CKQueryNotification? in
            for try await n in phone.notifications { if let q = n as? CKQueryNotification { return q } }
            return nil
        }
        let writer = Task {
            var i = 0
            while !Task.isCancelled {
                let r = CKRecord(recordType: "Diary", recordID: CKRecord.ID(recordName: "d\(i)"))
                r["title"] = "Monday"
                r.encryptedValues["secret"] = "the app's ciphertext"
                _ = try? await laptop.save(r)
                i += 1
                try? await Task.sleep(for: .milliseconds(300))
            }
        }
        let timeout = Task { try await Task.sleep(for: .seconds(20)); listener.cancel() }
        let n = try #require(try await listener.value)
        writer.cancel()
        timeout.cancel()
        #expect(n.recordFields?["title"] as? String == "Monday")
        #expect(n.recordFields?["secret"] == nil)
        let back = try await laptop.record(for: CKRecord.ID(recordName: "d0"))
        #expect(back.encryptedValues["secret"] as? String == "the app's ciphertext")
        #expect(back["secret"] == nil)
    }
}
