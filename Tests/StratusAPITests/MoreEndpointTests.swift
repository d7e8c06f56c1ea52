import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

@Suite struct MoreEndpointTests {
    @Test(arguments: Backend.allCases) func subscriptionsAreStoredListedLookedUpAndDeleted(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let create = """
            {"operations":[
              {"operationType":"create","subscription":{"subscriptionID":"new-notes","subscriptionType":"query",
                "query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"kind","fieldValue":{"value":"todo"}}]},
                "firesOn":["create","update"],"notificationInfo":{"alertBody":"<b>New</b> note"}}},
              {"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}},
              {"operationType":"create","subscription":{"subscriptionID":"bad","subscriptionType":"query","query":{"recordType":"Note"},"firesOn":["explode"]}}
            ]}
            """
        let r = try await f.call("subscriptions/modify", create, db: "private", user: f.aliceToken)
        let subs = try #require(r.json["subscriptions"]?.array)
        #expect(subs[0]["zoneWide"] == .bool(true) && subs[0]["firesOnce"] == .bool(false))
        #expect(subs[1]["subscriptionID"]?.string == "inbox")
        #expect(subs[2].code == "BAD_REQUEST")
        // Saving an ID that is taken replaces that subscription (CloudKit's save), as a second device of Alice's would.
        let again = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"},"notificationInfo":{"shouldBadge":true}}}]}"#, db: "private", user: f.aliceToken)
        #expect(again.json["subscriptions"]?.array?.first?.code == nil && again.json["subscriptions"]?.array?.first?["notificationInfo"]?["shouldBadge"] == .bool(true))
        let missing = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"update","subscription":{"subscriptionID":"nowhere","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}}]}"#, db: "private", user: f.aliceToken)
        #expect(missing.json["subscriptions"]?.array?.first?.code == "NOT_FOUND")
        let listed = try await f.call("subscriptions/list", db: "private", user: f.aliceToken)
        #expect(Set(listed.json["subscriptions"]?.array?.compactMap { $0["subscriptionID"]?.string } ?? []) == ["new-notes", "inbox"])
        // Bob has his own (empty) list.
        #expect(try await f.call("subscriptions/list", db: "private", user: f.bobToken).json["subscriptions"]?.array?.isEmpty == true)
        let lookup = try await f.call("subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"inbox"},{"subscriptionID":"nope"}]}"#, db: "private", user: f.aliceToken)
        #expect(lookup.json["subscriptions"]?.array?.map { $0.code } == [nil, "NOT_FOUND"])
        let deleted = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"inbox"}}]}"#, db: "private", user: f.aliceToken)
        #expect(deleted.json["subscriptions"]?.array?.first?["deleted"] == .bool(true))
    }

    @Test(arguments: Backend.allCases) func userDiscoveryAndLookup(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let dana = try await BlockingWorkHelper.run {
            try f.app.store.accounts.createUser(container: f.container, email: "dana@example.com", password: "a long password", firstName: "Dana", discoverable: true)
        }
        let discover = try await f.call("users/discover", #"{"lookupInfos":[{"emailAddress":"dana@example.com"},{"emailAddress":"nobody@example.com"}]}"#, user: f.aliceToken)
        #expect(discover.json["users"]?.array?.map { $0["userRecordName"]?.string } == [dana.userRecordName])
        #expect(discover.json["users"]?.array?.first?["nameComponents"]?["givenName"]?.string == "Dana")
        let byEmail = try await f.call("users/lookup/email", #"{"users":[{"emailAddress":"dana@example.com"},{"emailAddress":"x@example.com"}]}"#, user: f.aliceToken)
        #expect(byEmail.json["users"]?.array?.map { $0.code } == [nil, "NOT_FOUND"])
        #expect(byEmail.json["users"]?.array?.first?["firstName"]?.string == "Dana")
        let anonymous = try await f.call("users/discover", #"{"lookupInfos":[]}"#)
        #expect(anonymous.status == 421)
        // GET users/discover discovers all: the discoverable users who share with Alice, and nobody shares with her.
        let all = try await f.call("users/discover", user: f.aliceToken)
        #expect(all.status == 200 && all.json["users"]?.array?.isEmpty == true, "\(all.text)")
        // A lookup by phone number finds no one (Stratus keeps none) without failing the others beside it.
        let byPhone = try await f.call("users/discover", #"{"lookupInfos":[{"phoneNumber":"+15555550100"},{"emailAddress":"dana@example.com"}]}"#, user: f.aliceToken)
        #expect(byPhone.status == 200 && byPhone.json["users"]?.array?.map { $0["userRecordName"]?.string } == [dana.userRecordName], "\(byPhone.text)")
        let empty = try await f.call("users/discover", #"{"lookupInfos":[{}]}"#, user: f.aliceToken)
        #expect(empty.status == 400 && empty.json.code == "BAD_REQUEST")
        // CloudKit JS 1.x's discoverAllContactUserInfos: deprecated, answered with no one rather than a 404.
        let contacts = try await f.call("users/lookup/contacts", #"{"contacts":[]}"#, user: f.aliceToken)
        #expect(contacts.status == 200 && contacts.json["users"] == .array([]), "\(contacts.text)")
        #expect(try await f.call("users/lookup/contacts", #"{"contacts":[]}"#).status == 421, "a signed-in caller only")
    }

    @Test func noOneLearnsAnotherUsersEmailOrNameWithoutTheirConsent() async throws {
        // Given Erin, who never opted in, and Dana, who did; both wrote public records that carry their user record names
        let f = try await APIFixture()
        let (erin, dana) = try await BlockingWorkHelper.run {
            (try f.app.store.accounts.createUser(container: f.container, email: "erin@example.com", password: "a long password", firstName: "Erin", lastName: "Secret"),
             try f.app.store.accounts.createUser(container: f.container, email: "dana@example.com", password: "a long password", firstName: "Dana", discoverable: true))
        }
        let erinToken = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: erin.userRecordName)
        let note = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"by-erin","recordType":"Note","fields":{"t":{"value":"hi"}}}}]}"#, user: erinToken)
        let author = try #require(note.json.records.first?["created"]?["userRecordName"]?.string)
        #expect(author == erin.userRecordName)
        // When Alice looks Erin up every way there is, she learns nothing: not found, no email, no name
        let replies = [
            try await f.call("users/discover", #"{"lookupInfos":[{"userRecordName":"\#(author)"},{"emailAddress":"erin@example.com"}]}"#, user: f.aliceToken),
            try await f.call("users/lookup/id", #"{"users":[{"userRecordName":"\#(author)"}]}"#, user: f.aliceToken),
            try await f.call("users/lookup/email", #"{"users":[{"emailAddress":"erin@example.com"}]}"#, user: f.aliceToken),
        ]
        for r in replies {
            #expect(r.status == 200 && !r.text.contains("Erin") && !r.text.contains("Secret"), "\(r.text)")
        }
        #expect(!replies[0].text.contains(author) && !replies[1].text.contains("erin@"))
        // Dana, discoverable, is found by her record name with her name but never her email
        let byID = try await f.call("users/lookup/id", #"{"users":[{"userRecordName":"\#(dana.userRecordName)"}]}"#, user: f.aliceToken)
        #expect(byID.text.contains("Dana") && !byID.text.contains("dana@example.com"), "\(byID.text)")
        let discovered = try await f.call("users/discover", #"{"lookupInfos":[{"userRecordName":"\#(dana.userRecordName)"}]}"#, user: f.aliceToken)
        #expect(discovered.text.contains("Dana") && !discovered.text.contains("dana@example.com"), "\(discovered.text)")
        // The Development test user, whom anyone can become, discovers nobody
        let test = try await BlockingWorkHelper.run {
            try f.app.store.accounts.createUser(container: f.container, email: AccountStore.testUserEmail(f.container), password: "a long password")
        }
        let testToken = try f.app.store.accounts.createWebAuthToken(container: f.container, environment: .development, userRecordName: test.userRecordName)
        let fromTest = try await f.call("users/discover", #"{"lookupInfos":[{"emailAddress":"dana@example.com"}]}"#, user: testToken)
        #expect(fromTest.json["users"]?.array?.isEmpty == true)
        // A server-to-server key is told plainly that users/* is not for it (checked in ServerToServerTests).
    }

    /// The shared database has no zone of its own, as in CloudKit: no writes to its default zone, no zone
    /// creation there; nothing is written by the attempt.
    @Test(arguments: Backend.allCases) func theSharedDatabaseRefusesWhatCloudKitRefuses(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let write = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Note"}}]}"#, db: "shared", user: f.aliceToken)
        #expect(write.status == 400 && write.json.code == "BAD_REQUEST", "\(write.text)")
        let inZone = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Mine"},"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Note"}}]}"#, db: "shared", user: f.aliceToken)
        #expect(inZone.status == 404 || inZone.json.records.first?.code == "ZONE_NOT_FOUND" || inZone.json.code == "ZONE_NOT_FOUND", "\(inZone.text)")
        let zone = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Mine"}}}]}"#, db: "shared", user: f.aliceToken)
        #expect(zone.text.contains("BAD_REQUEST") && !zone.text.contains(#""syncToken""#), "\(zone.text)")
        let zones = try await f.call("zones/list", db: "shared", user: f.aliceToken)
        #expect(zones.status == 200 && zones.json["zones"]?.array?.isEmpty == true, "no zone is shared with Alice, and there is no default zone: \(zones.text)")
    }

    @Test(arguments: Backend.allCases) func unknownContainersAndEnvironmentsAreClearErrors(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        for path in ["database/1/iCloud.com.example.Missing/development/public/zones/list", "database/1/\(f.container.rawValue)/staging/public/zones/list",
                     "database/1/not-a-container/development/public/zones/list", "database/1/\(f.container.rawValue)/development/everyone/zones/list"] {
            let (d, r) = try await f.session.data(from: URL(string: "\(f.app.url)\(path)?ckAPIToken=\(f.devToken)")!)
            let status = (r as? HTTPURLResponse)?.statusCode ?? 0
            let code = (try? JSON.parse(d))?.code
            #expect((status == 404 && code == "NOT_FOUND") || (status == 400 && code == "BAD_REQUEST"), "\(path) → \(status) \(code ?? "")")
        }
    }

    @Test(arguments: Backend.allCases) func deviceTokens(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        var req = URLRequest(url: URL(string: "\(f.app.url)device/1/\(f.container.rawValue)/development/tokens/create?ckAPIToken=\(f.devToken)&ckWebAuthToken=\(APIFixture.encode(f.aliceToken))")!)
        req.httpMethod = "POST"
        req.httpBody = Data(#"{"apnsEnvironment":"DEVELOPMENT","clientId":"c1"}"#.utf8)
        let (d, r) = try await f.session.data(for: req)
        #expect((r as? HTTPURLResponse)?.statusCode == 200)
        let j = try JSON.parse(d)
        #expect(j["apnsToken"]?.string?.count == 64 && j["webcourierURL"]?.string?.contains("/-/webcourier/") == true)
        req.url = URL(string: "\(f.app.url)device/1/\(f.container.rawValue)/development/tokens/create")!
        #expect(((try await f.session.data(for: req)).1 as? HTTPURLResponse)?.statusCode == 401)
    }
}

import StratusHTTP
enum BlockingWorkHelper {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T { try await BlockingWork.shared.run(body) }
}
