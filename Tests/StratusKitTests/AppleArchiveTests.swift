import Foundation
import StratusKit
import Testing

/// A `CKRecord` archived by Apple's CloudKit on a Mac (`../shared/fixtures/cloudkit-archives/person.ckrecord`, read
/// from there, never copied here): apps moving from CloudKit keep such archives, and StratusKit reads them.
@Suite struct AppleArchiveTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/cloudkit-archives/person.ckrecord")

    @Test(.enabled(if: FileManager.default.fileExists(atPath: fixture.path), "../shared/fixtures/cloudkit-archives is not here (a clone outside the workplace): there are no Apple archive bytes to read"))
    func aRecordArchivedByApplesCloudKitIsRead() throws {
        let data = try Data(contentsOf: Self.fixture)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let record = try #require(CKRecord(coder: unarchiver), "CKRecord(coder:) read nothing")
        unarchiver.finishDecoding()
        Self.expectPerson(record)

        // Through the unarchiver's own entry points too, once the app has made its container (as apps do first).
        _ = CKContainer(identifier: "iCloud.com.example.Archive", configuration: .fromEnvironment([:]))
        let again = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data))
        Self.expectPerson(again)

        // And it is a record like any other: changed and archived again by StratusKit, it reads back.
        again["age"] = 27
        let ours = try NSKeyedArchiver.archivedData(withRootObject: again, requiringSecureCoding: true)
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: ours))
        #expect(back["age"] as? Int == 27 && back.recordChangeTag == "jh3gjmdt" && back.recordID == again.recordID)
    }

    static func expectPerson(_ r: CKRecord) {
        #expect(r.recordType == "Person")
        #expect(r.recordID.recordName == "1C0F1D79-F80C-74AF-9F9E-6A1581E7CD73")
        #expect(r.recordID.zoneID == .default && r.recordID.zoneID.ownerName == CKCurrentUserDefaultName)
        #expect(r.recordChangeTag == "jh3gjmdt")
        #expect(abs((r.creationDate?.timeIntervalSinceReferenceDate ?? 0) - 547826405.465) < 0.001)
        #expect(abs((r.modificationDate?.timeIntervalSinceReferenceDate ?? 0) - 547826453.433) < 0.001)
        #expect(r.creatorUserRecordID?.recordName == CKCurrentUserDefaultName)
        #expect(r["age"] as? Int == 26)
        #expect(r["website"] as? String == "https://guilhermerambo.me")
        #expect(r["name"] as? String == "Guilherme Rambo")
        #expect(r["isDeveloper"] as? Bool == true)
        let avatar = r["avatar"] as? CKAsset
        #expect(avatar?.fileURL?.lastPathComponent.hasPrefix("7644AD10-A5A5-4191-B4FF-EF412CC08A52") == true)
        #expect(Set(r.allKeys()) == ["age", "website", "name", "isDeveloper", "avatar"])
        #expect(r.changedKeys().isEmpty, "a record read from an archive has no unsaved changes")
    }
}
