import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusKit
import Testing

/// Throw-away test data for an app's suite: a container made from a schema and a seed in one call, and snapshots
/// that bring an environment back between tests, while the server runs.
@Suite struct SnapshotTests {
    static let adminToken = "admin-token-for-the-snapshot-tests"

    func admin(_ f: KitFixture, _ path: String, _ body: String) async throws -> (Int, [String: Any]) {
        var req = URLRequest(url: f.serverURL.appendingPathComponent(path))
        req.httpMethod = "POST"
        req.httpBody = Data(body.utf8)
        req.setValue("Bearer \(Self.adminToken)", forHTTPHeaderField: "Authorization")
        let (data, r) = try await URLSession.shared.data(for: req)
        return ((r as! HTTPURLResponse).statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }

    @Test func aSnapshotBringsRecordsTokensAndSubscriptionsBack() async throws {
        let f = try await KitFixture { $0.adminToken = SnapshotTests.adminToken }
        let db = f.aliceContainer().privateCloudDatabase
        let zone = try await db.save(CKRecordZone(zoneName: "Tasks"))
        let records = (0..<50).map { i -> CKRecord in
            let r = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "t\(i)", zoneID: zone.zoneID))
            r["title"] = "task \(i)"
            return r
        }
        _ = try await db.modifyRecords(saving: records, deleting: [])
        _ = try await db.save(CKDatabaseSubscription(subscriptionID: "all"))
        let token = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil).changeToken

        let (status, snap) = try await admin(f, "-/admin/containers/\(f.container.rawValue)/development/snapshot", "")
        #expect(status == 200)
        let id = try #require(snap["snapshot"] as? String)

        // A test changes everything.
        _ = try await db.modifyRecords(saving: [], deleting: records.prefix(30).map(\.recordID))
        let extra = CKRecord(recordType: "Task", recordID: CKRecord.ID(recordName: "extra", zoneID: zone.zoneID))
        extra["title"] = "added by a test"
        _ = try await db.save(extra)
        try await db.deleteSubscription(withID: "all")

        let (restored, _) = try await admin(f, "-/admin/containers/\(f.container.rawValue)/development/restore", #"{"snapshot":"\#(id)"}"#)
        #expect(restored == 200)
        let after = try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        #expect(Set(after.modificationResultsByID.keys.map(\.recordName)) == Set(records.map(\.recordID.recordName)))
        #expect(try await db.allSubscriptions().map(\.subscriptionID) == ["all"])
        // A token from before the snapshot goes on from where it was: nothing changed since, as of the snapshot.
        #expect(try await db.recordZoneChanges(inZoneWith: zone.zoneID, since: token).modificationResultsByID.isEmpty)

        let (missing, body) = try await admin(f, "-/admin/containers/\(f.container.rawValue)/development/restore", #"{"snapshot":"../../etc"}"#)
        #expect(missing == 400, "\(body)")
    }

    @Test func aContainerFromASchemaAndASeedInOneCall() async throws {
        let f = try await KitFixture { $0.adminToken = SnapshotTests.adminToken }
        let schema = """
            DEFINE SCHEMA
                RECORD TYPE Product ("___recordID" REFERENCE QUERYABLE, name STRING QUERYABLE SORTABLE, price DOUBLE, GRANT READ TO "_world");
            """
        let seed = (0..<3).map { #"{"recordName":"p\#($0)","recordType":"Product","fields":{"name":{"value":"Product \#($0)"},"price":{"value":\#($0).5}}}"# }
            .joined(separator: "\n")
        let payload = try JSONSerialization.data(withJSONObject: ["container": "iCloud.com.example.Seeded", "schema": schema, "records": seed])
        let (status, body) = try await admin(f, "-/admin/containers", String(decoding: payload, as: UTF8.self))
        #expect(status == 201 && body["records"] as? Int == 3, "\(body)")
        let api = try f.app.store.credentials.createAPIToken(container: try .init("iCloud.com.example.Seeded"), environment: .development, name: "t").secret
        let shop = CKContainer(identifier: "iCloud.com.example.Seeded", configuration: CKContainer.Configuration(serverURL: f.serverURL, apiToken: api))
        let query = CKQuery(recordType: "Product", predicate: NSPredicate(value: true))
        query.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let found = try await shop.publicCloudDatabase.records(matching: query)
        #expect(try found.matchResults.map { try $0.1.get()["name"] as? String } == ["Product 0", "Product 1", "Product 2"])
    }
}
