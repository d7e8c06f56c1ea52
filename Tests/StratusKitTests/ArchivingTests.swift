import Foundation
import StratusKit
import Testing

/// `CKQuery` and `CKSubscription` adopt `NSSecureCoding`, as CloudKit's do: an app keeps a query (say, a saved
/// search) or the subscriptions it made in a keyed archive, and what it reads back runs the same.
@Suite(.serialized) struct ArchivingTests {
    func roundTrip<T: NSObject & NSSecureCoding>(_ object: T) throws -> T {
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
        return try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data))
    }

    @Test func anArchivedQueryRunsAsTheOriginal() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        for (name, stars) in [("a", 1), ("b", 4), ("c", 5)] {
            let r = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name))
            r["stars"] = stars
            _ = try await db.save(r)
        }
        let query = CKQuery(recordType: "Note", predicate: NSPredicate(format: "stars >= %d", 3))
        query.sortDescriptors = [NSSortDescriptor(key: "stars", ascending: false)]
        let back = try roundTrip(query)
        #expect(back.recordType == "Note")
        let (original, _) = try await db.records(matching: query)
        let (restored, _) = try await db.records(matching: back)
        #expect(restored.map(\.0.recordName) == ["c", "b"])
        #expect(restored.map(\.0.recordName) == original.map(\.0.recordName))
    }

    @Test func archivedSubscriptionsKeepTheirKindAndSettings() throws {
        let query = CKQuerySubscription(recordType: "Note", predicate: NSPredicate(format: "stars > %d", 2), subscriptionID: "stars",
                                        options: [.firesOnRecordCreation, .firesOnce])
        query.zoneID = CKRecordZone.ID(zoneName: "Notes")
        let info = CKSubscription.NotificationInfo()
        info.title = "Starred"
        info.desiredKeys = ["stars"]
        query.notificationInfo = info
        let q = try #require(try roundTrip(query as CKSubscription) as? CKQuerySubscription)
        #expect(q.subscriptionID == "stars" && q.subscriptionType == .query && q.recordType == "Note")
        #expect(q.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnce] && q.zoneID?.zoneName == "Notes")
        #expect(q.notificationInfo?.title == "Starred" && q.notificationInfo?.desiredKeys == ["stars"])

        let zone = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneName: "Notes"), subscriptionID: "zone")
        zone.recordType = "Note"
        let z = try #require(try roundTrip(zone as CKSubscription) as? CKRecordZoneSubscription)
        #expect(z.zoneID.zoneName == "Notes" && z.recordType == "Note" && z.subscriptionType == .recordZone)

        let d = try #require(try roundTrip(CKDatabaseSubscription(subscriptionID: "db") as CKSubscription) as? CKDatabaseSubscription)
        #expect(d.subscriptionID == "db" && d.subscriptionType == .database && d.notificationInfo == nil)
    }
}
