import Foundation
import StratusKit
import Testing

/// A `Date` saved through StratusKit comes back `==`, bit for bit, as CloudKit gives it back: in plain fields, in
/// `encryptedValues`, in lists, from a fetch, a query, a change feed and an archive, on both engines; and a query
/// finds it by that exact `Date`.
@Suite struct DatePrecisionTests {
    /// Saved `…269.9655557`, returned `…269.966` when the wire carried milliseconds.
    static let fine = Date(timeIntervalSinceReferenceDate: 785_000_269.9655557)
    static let nextUp = Date(timeIntervalSinceReferenceDate: 785_000_269.9655557.nextUp)

    static func sameBits(_ a: Date?, _ b: Date) -> Bool {
        a?.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
    }

    @Test(arguments: KitBackend.allCases) func aSavedDateComesBackEqual(_ backend: KitBackend) async throws {
        guard let f = try await KitFixture.make(backend) else { return }
        let db = f.aliceContainer().privateCloudDatabase
        let now = Date()
        let record = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "entry"))
        record["at"] = Self.fine
        record["now"] = now
        record["dates"] = [Self.fine, Self.nextUp, Date.distantPast, Date.distantFuture]
        record.encryptedValues["secretAt"] = Self.nextUp
        let other = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "neighbour"))
        other["at"] = Self.nextUp
        let saved = try await db.save(record)
        _ = try await db.save(other)
        #expect(Self.sameBits(saved["at"] as? Date, Self.fine))

        let fetched = try await db.record(for: record.recordID)
        #expect(fetched["at"] as? Date == Self.fine)
        #expect(Self.sameBits(fetched["at"] as? Date, Self.fine))
        #expect(fetched["now"] as? Date == now)
        #expect(fetched["dates"] as? [Date] == [Self.fine, Self.nextUp, Date.distantPast, Date.distantFuture])
        #expect(Self.sameBits(fetched.encryptedValues["secretAt"] as? Date, Self.nextUp))

        // A query by the exact Date finds that record and not its neighbour a fraction of a microsecond later.
        let (matched, _) = try await db.records(matching: CKQuery(recordType: "Entry", predicate: NSPredicate(format: "at == %@", Self.fine as NSDate)))
        #expect(try matched.map { try $0.1.get().recordID.recordName } == ["entry"])
        let later = CKQuery(recordType: "Entry", predicate: NSPredicate(format: "at > %@", Self.fine as NSDate))
        let (after, _) = try await db.records(matching: later)
        #expect(try after.map { try $0.1.get().recordID.recordName } == ["neighbour"])
        let sorted = CKQuery(recordType: "Entry", predicate: NSPredicate(value: true))
        sorted.sortDescriptors = [NSSortDescriptor(key: "at", ascending: false)]
        #expect(try await db.records(matching: sorted).matchResults.map { try $0.1.get().recordID.recordName } == ["neighbour", "entry"])

        // A change feed hands the same Date to a second device.
        let zone = CKRecordZone(zoneName: "Journal")
        _ = try await db.save(zone)
        let synced = CKRecord(recordType: "Entry", recordID: CKRecord.ID(recordName: "synced", zoneID: zone.zoneID))
        synced["at"] = Self.fine
        _ = try await db.save(synced)
        let changes = try await f.aliceContainer().privateCloudDatabase.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
        let fromFeed = try changes.modificationResultsByID[synced.recordID]?.get().record
        #expect(Self.sameBits(fromFeed?["at"] as? Date, Self.fine))

        // An archived record (what sync code keeps on disk) keeps it too.
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        fetched.encode(with: archiver)
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = false
        let restored = CKRecord(coder: unarchiver)
        #expect(Self.sameBits(restored?["at"] as? Date, Self.fine))
    }

    /// The last-writer-wins merge apps write: the device whose edit is newer wins, judged by Dates compared
    /// with `<`/`==` after a round trip. With milliseconds, a Date rounded up looked newer than it was.
    @Test func aModificationDateComparesAsTheDeviceSawIt() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let edited = Date(timeIntervalSinceReferenceDate: 785_000_000.0006)   // rounds up to …000.001
        let local = Date(timeIntervalSinceReferenceDate: 785_000_000.0009)    // the device's later edit
        let r = CKRecord(recordType: "Doc", recordID: CKRecord.ID(recordName: "doc"))
        r["editedAt"] = edited
        _ = try await db.save(r)
        let server = try await db.record(for: r.recordID)
        let serverDate = try #require(server["editedAt"] as? Date)
        #expect(serverDate < local, "the server's copy is older than the local edit")
        #expect(serverDate == edited)
    }

    /// An archive an earlier StratusKit wrote held milliseconds; it still reads as the same Date.
    @Test func anArchiveFromBeforeReadsItsMilliseconds() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        archiver.encode("Doc" as NSString, forKey: "recordType")
        archiver.encode(CKRecord.ID(recordName: "old"), forKey: "recordID")
        archiver.encode(Data(#"{"at":{"value":1700000000123,"type":"TIMESTAMP"}}"#.utf8) as NSData, forKey: "fields")
        archiver.finishEncoding()
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
        unarchiver.requiresSecureCoding = false
        let restored = try #require(CKRecord(coder: unarchiver))
        #expect(restored["at"] as? Date == Date(timeIntervalSince1970: 1_700_000_000.123))
    }
}
