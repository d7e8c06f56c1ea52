import Foundation
import StratusKit
import Testing

/// Fetching changes as the CloudKit guides teach: database changes, then each changed zone's record changes, with
/// the tokens kept (archived) between runs of the app.
@Suite(.serialized) struct ChangeFeedTests {
    /// What an app keeps between launches.
    final class Cache: @unchecked Sendable {
        var databaseToken: Data?
        var zoneTokens: [String: Data] = [:]
        var records: [String: Data] = [:]   // record name → archived system fields + values
        var titles: [String: String] = [:]

        func token(_ data: Data?) -> CKServerChangeToken? {
            data.flatMap { try? NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: $0) }
        }

        func archive(_ token: CKServerChangeToken?) -> Data? {
            token.flatMap { try? NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true) }
        }
    }

    /// One sync pass, written with the operations and their blocks.
    func sync(_ db: CKDatabase, _ cache: Cache) async {
        let changedZones = Collected<CKRecordZone.ID>()
        let dbOp = CKFetchDatabaseChangesOperation(previousServerChangeToken: cache.token(cache.databaseToken))
        dbOp.resultsLimit = 1
        dbOp.recordZoneWithIDChangedBlock = { changedZones.append($0) }
        dbOp.changeTokenUpdatedBlock = { cache.databaseToken = cache.archive($0) }
        dbOp.fetchDatabaseChangesResultBlock = { result in
            if case .success(let (token, _)) = result { cache.databaseToken = cache.archive(token) }
        }
        await KitFixture.run(dbOp, on: db)
        let zones = changedZones.all
        guard !zones.isEmpty else { return }

        var configs: [CKRecordZone.ID: CKFetchRecordZoneChangesOperation.ZoneConfiguration] = [:]
        for z in zones {
            configs[z] = CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken: cache.token(cache.zoneTokens[z.zoneName]), resultsLimit: 7)
        }
        let op = CKFetchRecordZoneChangesOperation(recordZoneIDs: zones, configurationsByRecordZoneID: configs)
        op.recordWasChangedBlock = { id, result in
            guard case .success(let record) = result else { return }
            let coder = NSKeyedArchiver(requiringSecureCoding: true)
            record.encodeSystemFields(with: coder)
            coder.finishEncoding()
            cache.records[id.recordName] = coder.encodedData
            cache.titles[id.recordName] = record["title"] as? String
        }
        op.recordWithIDWasDeletedBlock = { id, _ in
            cache.records[id.recordName] = nil
            cache.titles[id.recordName] = nil
        }
        op.recordZoneChangeTokensUpdatedBlock = { zone, token, _ in cache.zoneTokens[zone.zoneName] = cache.archive(token) }
        op.recordZoneFetchResultBlock = { zone, result in
            if case .success(let (token, _, _)) = result { cache.zoneTokens[zone.zoneName] = cache.archive(token) }
        }
        await KitFixture.run(op, on: db)
    }

    @Test func databaseThenZoneChangesWithTokensKeptBetweenRuns() async throws {
        let f = try await KitFixture()
        let writer = f.aliceContainer().privateCloudDatabase
        let zoneA = CKRecordZone(zoneName: "Inbox"), zoneB = CKRecordZone(zoneName: "Archive")
        let (zs, _) = try await writer.modifyRecordZones(saving: [zoneA, zoneB], deleting: [])
        #expect(zs.count == 2)
        var records: [CKRecord] = []
        for i in 0..<20 {
            let r = CKRecord(recordType: "Mail", recordID: CKRecord.ID(recordName: "m\(i)", zoneID: i < 15 ? zoneA.zoneID : zoneB.zoneID))
            r["title"] = "Mail \(i)"
            records.append(r)
        }
        _ = try await writer.modifyRecords(saving: records, deleting: [])

        // First launch: everything, in pages, into the cache.
        let cache = Cache()
        let device = f.aliceContainer().privateCloudDatabase
        await sync(device, cache)
        #expect(cache.titles.count == 20)
        #expect(cache.titles["m3"] == "Mail 3")
        #expect(cache.zoneTokens.count == 2)

        // Changes on the server while the app is closed.
        let m3 = try await writer.record(for: records[3].recordID)
        m3["title"] = "Mail 3 (edited)"
        let m3Saved = try await writer.save(m3)
        try await writer.deleteRecord(withID: records[16].recordID)

        // Next launch, from the archived tokens: only what changed.
        let changed = Collected<String>()
        await sync(device, cache)
        #expect(cache.titles["m3"] == "Mail 3 (edited)")
        #expect(cache.titles["m16"] == nil)
        #expect(cache.titles.count == 19)
        _ = changed

        // A cached record's system fields rebuild a record that saves against the version it has.
        let coder = try NSKeyedUnarchiver(forReadingFrom: try #require(cache.records["m3"]))
        coder.requiresSecureCoding = true
        let rebuilt = try #require(CKRecord(coder: coder))
        #expect(rebuilt.recordID == records[3].recordID)
        #expect(rebuilt.recordChangeTag == m3Saved.recordChangeTag)
        rebuilt["title"] = "Mail 3 (from the cache)"
        _ = try await device.save(rebuilt)
        #expect(try await writer.record(for: records[3].recordID)["title"] as? String == "Mail 3 (from the cache)")

        // The async forms report the same feed.
        let (mods, deletions, token, more) = try await device.recordZoneChanges(inZoneWith: zoneB.zoneID, since: nil)
        #expect(mods.count == 4)
        #expect(!more)
        #expect(deletions.map(\.recordID.recordName) == ["m16"])
        #expect(deletions.map(\.recordType) == ["Mail"])
        let again = try await device.recordZoneChanges(inZoneWith: zoneB.zoneID, since: token)
        #expect(again.modificationResultsByID.isEmpty)
        let dbChanges = try await device.databaseChanges(since: nil)
        #expect(Set(dbChanges.modifications.map(\.zoneID.zoneName)).isSuperset(of: ["Inbox", "Archive"]))

        // Zone deletion shows in the database feed.
        try await writer.deleteRecordZone(withID: zoneB.zoneID)
        let after = try await device.databaseChanges(since: dbChanges.changeToken)
        #expect(after.deletions.map(\.zoneID.zoneName) == ["Archive"])
        #expect(after.deletions.first?.reason == .deleted)
        let zones = try await device.allRecordZones()
        #expect(zones.map(\.zoneID.zoneName).contains("Inbox"))
        #expect(!zones.map(\.zoneID.zoneName).contains("Archive"))
    }

    @Test func tokensAndRecordsCodeAsCloudKitsDo() throws {
        let token = CKServerChangeToken.self
        _ = token
        let id = CKRecord.ID(recordName: "x", zoneID: CKRecordZone.ID(zoneName: "Z"))
        let r = CKRecord(recordType: "T", recordID: id)
        r["n"] = 3
        r["s"] = "text"
        let data = try NSKeyedArchiver.archivedData(withRootObject: r, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data))
        #expect(back.recordID == id)
        #expect(back["n"] as? Int == 3)
        #expect(back["s"] as? String == "text")
        #expect(back.changedKeys().isEmpty)
    }
}
