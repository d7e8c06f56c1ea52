import Foundation
import StratusKit
import StratusModel
import StratusStore
import Testing

/// The user record, as the best-known CloudKit tutorial uses it: fetched by the ID `userRecordID()` gives, given an
/// avatar, read on another device and by other users; CloudKit's rules for the `Users` type hold.
@Suite struct UserRecordTests {
    @Test func theUserRecordTakesAnAvatarThatAnotherDeviceReads() async throws {
        let f = try await KitFixture()
        let phone = f.aliceContainer()
        let id = try await phone.userRecordID()
        let me = try await phone.publicCloudDatabase.record(for: id)
        #expect(me.recordType == CKRecordTypeUserRecord && me.recordID == id)
        #expect(me.allKeys().isEmpty, "a user record starts empty")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("avatar-\(UUID().uuidString).png")
        let pixels = Data((0..<5000).map { UInt8(($0 * 7) % 256) })
        try pixels.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        me["avatar"] = CKAsset(fileURL: file)
        me["displayName"] = "Alice A."
        let saved = try await phone.publicCloudDatabase.save(me)
        #expect(saved["displayName"] as? String == "Alice A.")

        // Another device of hers, and another user, read it (the public user record is readable by everyone).
        for container in [f.aliceContainer(), f.bobContainer()] {
            let read = try await container.publicCloudDatabase.record(for: id)
            #expect(read["displayName"] as? String == "Alice A.")
            let asset = try #require(read["avatar"] as? CKAsset)
            #expect(try Data(contentsOf: try #require(asset.fileURL)) == pixels)
        }
        // Only she writes it.
        let onBob = try await f.bobContainer().publicCloudDatabase.record(for: id)
        onBob["displayName"] = "not Alice"
        do {
            _ = try await f.bobContainer().publicCloudDatabase.save(onBob)
            Issue.record("another user wrote Alice's user record")
        } catch let e as CKError {
            #expect(e.code == .permissionFailure)
        }
        // Her private database has her user record too.
        #expect(try await phone.privateCloudDatabase.record(for: id).recordType == CKRecordTypeUserRecord)
    }

    @Test func usersRecordsAreNotMadeOrQueriedByAppsAndRolesAreTheServers() async throws {
        let f = try await KitFixture()
        let db = f.aliceContainer().publicCloudDatabase
        let forged = CKRecord(recordType: CKRecordTypeUserRecord, recordID: CKRecord.ID(recordName: "_" + String(repeating: "f", count: 32)))
        forged["displayName"] = "someone"
        do {
            _ = try await db.save(forged)
            Issue.record("a Users record was created by an app")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }
        do {
            _ = try await db.records(matching: CKQuery(recordType: CKRecordTypeUserRecord, predicate: NSPredicate(value: true)))
            Issue.record("the Users type was queried")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }

        // The console gives Alice a custom role; her user record lists it, and she cannot change the list.
        _ = try f.app.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA CREATE ROLE Editors;"), into: f.container)
        let env = try f.app.store.environment(f.container, .development)
        try env.schema.assignRole("Editors", to: KitFixture.alice.userRecordName)
        let id = try await f.aliceContainer().userRecordID()
        let me = try await db.record(for: id)
        #expect(me["roles"] as? [Int64] == [UserRecord.roleID("Editors")])
        me["roles"] = [Int64(1)]
        do {
            _ = try await db.save(me)
            Issue.record("a user changed their own roles")
        } catch let e as CKError {
            #expect(e.code == .invalidArguments)
        }
        // The Users type shows in the schema, with CloudKit's grants.
        let users = try #require(try env.schema.current().recordType(named: "Users"))
        #expect(users.grants["_creator"] == .write && users.grants["_world"] == .read)
        #expect(users.field(named: "roles")?.type == FieldType(.int64, isList: true))
        // A schema import that does not name Users leaves it (it is the server's).
        _ = try f.app.store.lifecycle.importSchema(try SchemaParser.parse("DEFINE SCHEMA CREATE ROLE Editors; RECORD TYPE Note (title STRING);"), into: f.container)
        #expect(try env.schema.current().recordType(named: "Users") != nil)
    }
}
