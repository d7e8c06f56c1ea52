import Foundation
import Testing
import StratusTestSupport
import StratusModel
import StratusStore

/// The console's Sharing page: every share with its participants, a link to its URL, and revocation (audited,
/// CSRF-guarded) that ends the participants' access on their next request.
@Suite struct ConsoleSharingTests {
    @Test func sharesAreListedAndARevocationEndsAccess() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Family")
        try f.app.store.createContainer(container)
        let (owner, member) = try await offPool {
            (try f.app.store.accounts.createUser(container: container, email: "olga@example.com", password: "a long password"),
             try f.app.store.accounts.createUser(container: container, email: "mel&co@example.com", password: "a long password"))
        }
        let env = try f.app.store.environment(container, .development)
        let ownerDB = DatabaseID.privateDatabase(of: owner.userRecordName)
        try env.zones.createZone(ZoneID(zoneName: "Trips"), in: ownerDB)
        var share = RecordOperation(.create, StoredRecord(recordName: "trip-share", recordType: Share.recordType))
        share.share = ShareRequest(forRecord: "paris", participants: [ShareRequest.Invitee(lookup: .userRecordName(member.userRecordName), permission: .readWrite)])
        let results = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "paris", recordType: "Trip")), share], in: ownerDB, zoneID: ZoneID(zoneName: "Trips"),
                                     actor: RequestActor(userRecordName: owner.userRecordName), users: { _ in member })
        guard case .savedShare(let saved) = results[1] else { Issue.record("\(results)"); return }
        _ = try env.sharing.acceptShare(saved.shortGUID, user: member.userRecordName)
        let memberDB = DatabaseID.sharedDatabase(of: member.userRecordName)
        #expect(try env.zones.all(in: memberDB).map(\.zoneID.zoneName) == ["Trips"])
        // The owner's zone stays in her private database: her shared database holds only what others share with her.
        #expect(try env.zones.all(in: .sharedDatabase(of: owner.userRecordName)).isEmpty)
        #expect(try env.zones.databaseChanges(in: .sharedDatabase(of: owner.userRecordName), since: nil).changedZones.isEmpty)

        let base = "/console/\(container.rawValue)/development"
        let page = try await s.get("\(base)/sharing")
        #expect(page.status == 200 && page.html.contains("trip-share") && page.html.contains("olga@example.com") && page.html.contains("mel&amp;co@example.com")
                && page.html.contains("READ_WRITE") && page.html.contains("ACCEPTED") && page.html.contains("/share/\(saved.shortGUID)"))
        #expect(!page.html.contains("mel&co@"), "escaped")
        // The shared database, browsed as the member, shows what the member sees.
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "not-shared", recordType: "Trip"))], in: ownerDB, zoneID: ZoneID(zoneName: "Trips"),
                           actor: RequestActor(userRecordName: owner.userRecordName))
        let asMember = try await s.get("\(base)/shared/records?type=Trip&as=\(member.userRecordName)")
        #expect(asMember.status == 200 && asMember.html.contains("paris") && !asMember.html.contains("not-shared"), "\(asMember.html.suffix(1500))")
        let record = try await s.get("\(base)/shared/records/Trips/paris?as=\(member.userRecordName)")
        #expect(record.status == 200 && record.html.contains("paris"))
        #expect(try await s.get("\(base)/shared/records/Trips/not-shared?as=\(member.userRecordName)").status == 404)
        // The revoke form names the share by its number, never by its URL's GUID.
        let shareID = try #require(try env.sharing.allSharesByID().first?.id)
        #expect(page.html.contains("\(base)/sharing/\(shareID)/revoke") && !page.html.contains("/sharing/\(saved.shortGUID)"))
        #expect(try await s.post("\(base)/sharing/\(shareID)/revoke", [], csrf: false).status == 403)
        let revoked = try await s.post("\(base)/sharing/\(shareID)/revoke", [])
        #expect(revoked.status == 303)
        let after = try await s.get("\(base)/sharing")
        #expect(after.html.contains("No shares in this environment yet"), "\(after.html.suffix(600))")
        #expect(try env.zones.all(in: memberDB).isEmpty)
        #expect(throws: StratusError.self) { try env.records.query(Query(recordType: "Trip", zoneID: ZoneID(zoneName: "Trips", ownerRecordName: owner.userRecordName)), in: memberDB) }
        #expect(try await s.get("/console/audit").html.contains("revoke share"))
        #expect(try await s.post("\(base)/sharing/\(shareID)/revoke", []).status == 404)
        #expect(try await s.post("\(base)/sharing/AAAAAAAAAAAAAAAAAAAAAAAA/revoke", []).status == 404)
    }
}

/// In Production without `--allow-production-user-data`, the Sharing, Notifications and Subscriptions pages show of
/// users' personal data what the Users page shows: masked emails, no share URLs, no record names.
@Suite struct ProductionPagesMaskTests {
    @Test func personalDataIsMaskedOnEveryProductionPage() async throws {
        let f = try await ConsoleFixture()
        let s = try await ConsoleSession.signIn(f)
        let container = try ContainerID("iCloud.com.example.Masked")
        try f.app.store.createContainer(container)
        let (owner, member) = try await offPool {
            (try f.app.store.accounts.createUser(container: container, email: "olga@example.com", password: "a long password"),
             try f.app.store.accounts.createUser(container: container, email: "melvin@example.com", password: "a long password"))
        }
        let env = try f.app.store.environment(container, .production)
        let ownerDB = DatabaseID.privateDatabase(of: owner.userRecordName)
        try await offPool {
            // Production's schema first (deployed from Development), then Olga's data.
            let dev = try f.app.store.environment(container, .development)
            _ = try dev.records.modify([RecordOperation(.create, StoredRecord(recordName: "x", recordType: "Trip"))], in: .publicDatabase, actor: RequestActor(userRecordName: owner.userRecordName))
            var schema = try dev.schema.current()
            schema.roles.append("Editors")
            _ = try dev.schema.applySchema(schema, protecting: nil)
            _ = try f.app.store.lifecycle.deploy(container, by: "test")
            try env.schema.assignRole("Editors", to: member.userRecordName)
            try env.zones.createZone(ZoneID(zoneName: "Trips"), in: ownerDB)
            try env.subscriptions.saveSubscription("olgas-trips", document: #"{"subscriptionID":"olgas-trips","subscriptionType":"zone","zoneID":{"zoneName":"Trips"}}"#, in: .private,
                                     owner: owner.userRecordName)
            var share = RecordOperation(.create, StoredRecord(recordName: "secret-trip-share", recordType: Share.recordType))
            share.share = ShareRequest(forRecord: "secret-trip", participants: [ShareRequest.Invitee(lookup: .userRecordName(member.userRecordName), permission: .readWrite)])
            _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "secret-trip", recordType: "Trip")), share], in: ownerDB, zoneID: ZoneID(zoneName: "Trips"),
                               actor: RequestActor(userRecordName: owner.userRecordName), users: { _ in member })
        }
        let base = "/console/\(container.rawValue)/production"
        let guid = try #require(try env.sharing.allShares().first?.shortGUID)
        // Each page and its JSON face (`?format=json`, and `Accept: application/json`).
        for page in ["", "sharing", "notifications", "subscriptions", "users", "roles"] {
            for (suffix, accept) in [("", nil), ("?format=json", nil), ("", "application/json")] as [(String, String?)] {
                let html = try await s.get("\(base)/\(page)\(suffix)", accept: accept).html
                for secret in ["olga@example.com", "melvin@example.com", "secret-trip", "/share/", guid] {
                    #expect(!html.contains(secret), "the \(page)\(suffix) page (\(accept ?? "html")) shows \(secret)")
                }
            }
            let html = try await s.get("\(base)/\(page)").html
            #expect(html.contains("o…@example.com") || page != "subscriptions" && page != "sharing", "the \(page) page names the user masked")
        }
    }
}
