import Foundation
import StratusKit
import StratusModel
import Testing

/// `encryptedValues` as CloudKit's: a value written there is read there only, its field is ENCRYPTED in the schema
/// (unindexed), and CloudKit's rules for what may be encrypted hold.
@Suite struct EncryptedFieldTests {
    @Test func anEncryptedFieldIsReadThroughEncryptedValuesOnlyAndIsEncryptedInTheSchema() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().privateCloudDatabase
        let contact = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: "ada"))
        contact["name"] = "Ada"
        contact.encryptedValues["phone"] = "+44 20 7946 0000"
        #expect(contact["phone"] == nil, "the plain subscript does not read an encrypted field")
        #expect(contact.encryptedValues["phone"] as? String == "+44 20 7946 0000")
        #expect(contact.allKeys() == ["name"] && contact.encryptedValues.allKeys() == ["phone"])
        let saved = try await db.save(contact)
        #expect(saved["phone"] == nil && saved.encryptedValues["phone"] as? String == "+44 20 7946 0000")

        let fetched = try await db.record(for: contact.recordID)
        #expect(fetched["name"] as? String == "Ada")
        #expect(fetched["phone"] == nil)
        #expect(fetched.object(forKey: "phone") == nil)
        #expect(fetched.encryptedValues["phone"] as? String == "+44 20 7946 0000")
        #expect(fetched.encryptedValues["name"] == nil, "a plain field is not an encrypted one")
        #expect(fetched.allKeys() == ["name"] && fetched.encryptedValues.allKeys() == ["phone"])

        // Schema-on-write made it ENCRYPTED, with no index, as CloudKit does not index encrypted fields.
        let schema = try f.app.store.environment(f.container, .development).schema.current()
        let phone = try #require(schema.recordType(named: "Contact")?.fields.first { $0.name == "phone" })
        #expect(phone.type.encrypted && phone.type.scalar == .string && phone.indexes.isEmpty, "\(phone)")

        // Editing it again through encryptedValues keeps it encrypted; the plain one stays plain.
        fetched.encryptedValues["phone"] = "+44 20 7946 0001"
        let edited = try await db.save(fetched)
        #expect(edited.encryptedValues["phone"] as? String == "+44 20 7946 0001" && edited["name"] as? String == "Ada")
    }

    /// "CloudKit doesn't allow encryption on fields that already exist in your app's schema, or on records that you
    /// store in the public database" (`CKRecord.encryptedValues`).
    @Test func whatCloudKitDoesNotEncryptIsRefused() async throws {
        let f = try await KitFixture()
        let container = f.aliceContainer()
        let pub = CKRecord(recordType: "Poster", recordID: CKRecord.ID(recordName: "p"))
        pub.encryptedValues["secret"] = "x"
        await #expect(throws: CKError.self) { _ = try await container.publicCloudDatabase.save(pub) }

        let db = container.privateCloudDatabase
        let plain = CKRecord(recordType: "Card", recordID: CKRecord.ID(recordName: "c1"))
        plain["number"] = "4111"
        _ = try await db.save(plain)
        let later = CKRecord(recordType: "Card", recordID: CKRecord.ID(recordName: "c2"))
        later.encryptedValues["number"] = "4242"
        do {
            _ = try await db.save(later)
            Issue.record("an existing plain field was encrypted")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }
    }
}
