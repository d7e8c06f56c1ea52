import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// Subscriptions that notify: which changes fire which subscription, for whom, and delivery through the web courier.
@Suite struct NotificationTests {
    static func subscribe(_ f: APIFixture, _ subscription: String, db: String, user: String) async throws -> APIFixture.Reply {
        try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":\#(subscription)}]}"#, db: db, user: user)
    }

    /// The environment's notifications, with what the writes so far handed to the fan-out delivered.
    static func delivered(_ f: APIFixture) throws -> NotificationStore {
        let notifications = try f.app.store.environment(f.container, .development).notifications
        notifications.deliverHandedOff()
        return notifications
    }

    /// `user`'s notifications, once what the writes so far handed to the fan-out is delivered.
    static func notes(_ f: APIFixture, _ user: String) throws -> [[String: Any]] {
        let notifications = try f.app.store.environment(f.container, .development).notifications
        notifications.deliverHandedOff()
        return try notifications.entries(for: user, after: 0).map {
            (try JSONSerialization.jsonObject(with: Data($0.payload.utf8)) as? [String: Any]) ?? [:]
        }
    }

    static func modify(_ f: APIFixture, _ ops: String, db: String = "public", zone: String? = nil, user: String) async throws -> APIFixture.Reply {
        let z = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        return try await f.call("records/modify", #"{\#(z)"operations":[\#(ops)]}"#, db: db, user: user)
    }

    @Test(arguments: Backend.allCases) func queryZoneAndDatabaseSubscriptionsFireForTheirOwnerOnly(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let (alice, bob) = (f.alice.userRecordName, f.bob.userRecordName)
        // Alice: a public query subscription on urgent Tasks (create, update, delete), with desired keys and an alert.
        let q = #"{"subscriptionID":"urgent","subscriptionType":"query","query":{"recordType":"Task","filterBy":[{"comparator":"EQUALS","fieldName":"urgent","fieldValue":{"value":1}}]},"firesOn":["create","update","delete"],"notificationInfo":{"alertBody":"Urgent!","shouldSendContentAvailable":true,"desiredKeys":["title"]}}"#
        #expect(try await Self.subscribe(f, q, db: "public", user: f.aliceToken).json["subscriptions"]?.array?.first?.code == nil)
        // Alice: a zone subscription and a database subscription in her private database.
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Work"}}}]}"#, db: "private", user: f.aliceToken)
        #expect(try await Self.subscribe(f, #"{"subscriptionID":"work","subscriptionType":"zone","zoneID":{"zoneName":"Work"}}"#, db: "private", user: f.aliceToken).status == 200)
        #expect(try await Self.subscribe(f, #"{"subscriptionID":"all","subscriptionType":"database"}"#, db: "private", user: f.aliceToken).status == 200)
        // Refused: a zone or database subscription on the public database, an unknown type.
        for bad in [#"{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}"#, #"{"subscriptionID":"d","subscriptionType":"database"}"#,
                    #"{"subscriptionID":"x","subscriptionType":"other"}"#] {
            #expect(try await Self.subscribe(f, bad, db: "public", user: f.aliceToken).json["subscriptions"]?.array?.first?.code == "BAD_REQUEST")
        }

        // Bob creates an urgent Task and a calm one, updates the urgent one, makes it calm (leaves the query), deletes the calm one.
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"t1","recordType":"Task","fields":{"urgent":{"value":1},"title":{"value":"Fire"}}}},{"operationType":"create","record":{"recordName":"t2","recordType":"Task","fields":{"urgent":{"value":0}}}}"#, user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"t1","recordType":"Task","fields":{"title":{"value":"Bigger fire"}}}}"#, user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"t1","recordType":"Task","fields":{"urgent":{"value":0}}}}"#, user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"forceDelete","record":{"recordName":"t2"}}"#, user: f.bobToken)
        let query = try Self.notes(f, alice).compactMap { $0["ck"] as? [String: Any] }.compactMap { $0["qry"] as? [String: Any] }
        #expect(query.map { $0["fo"] as? Int } == [1, 2, 3], "created, updated, then deleted from the query: \(query)")
        // What /-/metrics reports: counted once the fan-out's commit has run its after-commit work, a moment after
        // its notifications can be read (the server's own fan-out may have made them).
        let counter = try f.app.store.environment(f.container, .development).notifications.notificationCounter
        for _ in 0..<200 where counter.notifications < 3 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(counter.notifications == 3, "what /-/metrics reports")
        #expect(query.first?["rid"] as? String == "t1" && query.first?["sid"] as? String == "urgent" && query.first?["dbs"] as? Int == 1)
        #expect((query.first?["af"] as? [String: Any])?["title"] as? String == "Fire")
        let first = try #require(Self.notes(f, alice).first)
        #expect((first["aps"] as? [String: Any])?["content-available"] as? Int == 1 && ((first["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "Urgent!")
        #expect((first["ck"] as? [String: Any])?["cid"] as? String == f.container.rawValue && ((first["ck"] as? [String: Any])?["nid"] as? String)?.count == 36)

        // Alice's private writes fire her zone and database subscriptions; Bob's private writes fire nothing of hers.
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"p1","recordType":"Note"}}"#, db: "private", zone: "Work", user: f.aliceToken)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"p2","recordType":"Note"}}"#, db: "private", user: f.aliceToken)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Work"}}}]}"#, db: "private", user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"secret","recordType":"Note","fields":{"t":{"value":"Bob's secret"}}}}"#, db: "private", zone: "Work", user: f.bobToken)
        let all = try Self.notes(f, alice)
        let fetch = all.compactMap { ($0["ck"] as? [String: Any])?["fet"] as? [String: Any] }
        let meta = all.compactMap { ($0["ck"] as? [String: Any])?["met"] as? [String: Any] }
        #expect(fetch.count == 1 && fetch.first?["zid"] as? String == "Work" && fetch.first?["dbs"] as? Int == 2)
        #expect(meta.count == 2, "the database subscription hears both zones: \(meta)")
        // No notification of Alice's carries Bob's private record, and Bob, who subscribed to nothing, has none.
        let text = try Self.delivered(f).entries(for: alice, after: 0).map(\.payload).joined()
        #expect(!text.contains("secret"))
        #expect(try Self.notes(f, bob).isEmpty)
    }

    @Test(arguments: Backend.allCases) func publicQuerySubscriptionsRespectReadPermissionAndFireOnce(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        // Only creators may read Diary records.
        try f.app.store.lifecycle.importSchema(try SchemaParser.parse(#"DEFINE SCHEMA RECORD TYPE Diary (text STRING QUERYABLE, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_creator");"#),
                                     into: f.container)
        _ = try await Self.subscribe(f, #"{"subscriptionID":"diaries","subscriptionType":"query","query":{"recordType":"Diary"},"firesOn":["create"]}"#, db: "public", user: f.aliceToken)
        _ = try await Self.subscribe(f, #"{"subscriptionID":"once","subscriptionType":"query","query":{"recordType":"Memo"},"firesOn":["create"],"firesOnce":true}"#, db: "public", user: f.aliceToken)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"d1","recordType":"Diary","fields":{"text":{"value":"Bob's diary"}}}}"#, user: f.bobToken)
        #expect(try Self.notes(f, f.alice.userRecordName).isEmpty, "Alice may not read Bob's diary, so she hears nothing of it")
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"m1","recordType":"Memo"}},{"operationType":"create","record":{"recordName":"m2","recordType":"Memo"}}"#, user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"m3","recordType":"Memo"}}"#, user: f.bobToken)
        #expect(try Self.notes(f, f.alice.userRecordName).count == 1, "firesOnce fires once")
        let listed = try await f.call("subscriptions/list", db: "public", user: f.aliceToken)
        #expect(listed.json["subscriptions"]?.array?.compactMap { $0["subscriptionID"]?.string } == ["diaries"])
    }

    /// A subscription that fires once fires once even when fan-out turns overlap (PostgreSQL's may, on one server or
    /// several): each write is a change of its own, and four deliverers take them at once.
    @Test(arguments: Backend.allCases) func firesOnceHoldsWhenTurnsOverlap(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        _ = try await Self.subscribe(f, #"{"subscriptionID":"once","subscriptionType":"query","query":{"recordType":"Memo"},"firesOn":["create"],"firesOnce":true}"#, db: "public", user: f.aliceToken)
        let notifications = try f.app.store.environment(f.container, .development).notifications
        for i in 0..<24 {
            _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"m\#(i)","recordType":"Memo"}}"#, user: f.bobToken)
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { _ = try? await offPool { notifications.deliverHandedOff() } } }
        }
        #expect(try Self.notes(f, f.alice.userRecordName).count == 1)
        let listed = try await f.call("subscriptions/list", db: "public", user: f.aliceToken)
        #expect(listed.json["subscriptions"]?.array?.isEmpty == true, "spent, the subscription is gone")
    }

    /// Subscriptions grouped by an equality filter's value still hear exactly what matches: a record that moves from
    /// one list to another leaves the first list's query and enters the second's; numbers match across kinds.
    @Test(arguments: Backend.allCases) func equalityGroupedSubscriptionsHearTheirValueOnly(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        for (id, list) in [("a", "groceries"), ("b", "chores"), ("c", "garden")] {
            _ = try await Self.subscribe(f, #"{"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"list","fieldValue":{"value":"\#(list)"}}]},"firesOn":["create","update","delete"]}"#, db: "public", user: f.aliceToken)
        }
        _ = try await Self.subscribe(f, #"{"subscriptionID":"two","subscriptionType":"query","query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"n","fieldValue":{"value":2.0,"type":"DOUBLE"}}]},"firesOn":["create","update","delete"]}"#, db: "public", user: f.aliceToken)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"i1","recordType":"Item","fields":{"list":{"value":"groceries"},"n":{"value":2}}}}"#, user: f.bobToken)
        _ = try await Self.modify(f, #"{"operationType":"forceUpdate","record":{"recordName":"i1","recordType":"Item","fields":{"list":{"value":"chores"}}}}"#, user: f.bobToken)
        let heard = try Self.notes(f, f.alice.userRecordName).compactMap { ($0["ck"] as? [String: Any])?["qry"] as? [String: Any] }
            .map { "\($0["sid"] as? String ?? "?"):\($0["fo"] as? Int ?? 0)" }
        #expect(heard.sorted() == ["a:1", "a:3", "b:1", "two:1", "two:2"], "\(heard)")
    }

    @Test(arguments: Backend.allCases) func databaseSubscriptionsHearZonesComeAndGo(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        _ = try await Self.subscribe(f, #"{"subscriptionID":"all","subscriptionType":"database"}"#, db: "private", user: f.aliceToken)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"New"}}}]}"#, db: "private", user: f.aliceToken)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"New"}}}]}"#, db: "private", user: f.aliceToken)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"BobsZone"}}}]}"#, db: "private", user: f.bobToken)
        let logged = try Self.delivered(f).entries(for: f.alice.userRecordName, after: 0)
        #expect(logged.map(\.reason) == [1, 3] && logged.allSatisfy { $0.payload.contains(#""met""#) && !$0.payload.contains("BobsZone") })
    }

    /// Notifications older than the retention are dropped; asking for what came after one of them is CloudKit's
    /// expired-token answer, while a courier token reads on from the oldest kept one instead of staying stuck.
    @Test func notificationsPastTheRetentionAreDroppedAndSayExpired() async throws {
        let f = try await APIFixture { $0.notifications.retention = 300 }
        _ = try await Self.subscribe(f, #"{"subscriptionID":"all","subscriptionType":"database"}"#, db: "private", user: f.aliceToken)
        let env = try f.app.store.environment(f.container, .development)
        try env.notifications.createCourierToken("tok", user: f.alice.userRecordName, expiresAt: WallClock.nowMillis() + 60_000)
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"old","recordType":"Note"}}"#, db: "private", user: f.aliceToken)
        try await offPool { env.notifications.deliverHandedOff() }
        let old = try #require(try env.notifications.entries(for: f.alice.userRecordName, after: 0).first)
        try await Task.sleep(for: .milliseconds(700))
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"new","recordType":"Note"}}"#, db: "private", user: f.aliceToken)
        try await offPool { env.notifications.deliverHandedOff(); env.notifications.tendLog() }
        // The retention is held at most once per its length after an append (a loaded machine may have run the
        // first pass late): more writes come until one finds "old" past it.
        for i in 0..<20 where (try? env.notifications.entries(for: f.alice.userRecordName, after: 0)) != nil {
            try await Task.sleep(for: .milliseconds(400))
            _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"later\#(i)","recordType":"Note"}}"#, db: "private", user: f.aliceToken)
            try await offPool { env.notifications.deliverHandedOff(); env.notifications.tendLog() }
        }
        #expect(throws: StratusError.self) { try env.notifications.entries(for: f.alice.userRecordName, after: 0) }
        #expect(throws: StratusError.self) { try env.notifications.notificationPosition(nid: old.notificationID, user: f.alice.userRecordName) }
        // The courier token, which had read nothing, reads on from the oldest notification kept.
        let kept = try env.notifications.entries(for: f.alice.userRecordName, after: 0, skippingExpired: true)
        try #require(kept.first?.recordName == "new" || kept.first?.recordName?.hasPrefix("later") == true, "\(kept.map(\.recordName))")
        let (polled, response) = try await f.session.data(from: URL(string: "\(f.app.url)-/webcourier/\(f.container.rawValue)/development/tok")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && String(decoding: polled, as: UTF8.self).contains(kept[0].notificationID))
    }

    @Test(arguments: Backend.allCases) func aFailedWriteLeavesNoNotification(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"A"}}}]}"#, db: "private", user: f.aliceToken)
        _ = try await Self.subscribe(f, #"{"subscriptionID":"all","subscriptionType":"database"}"#, db: "private", user: f.aliceToken)
        let atomic = #"{"zoneID":{"zoneName":"A"},"atomic":true,"operations":[{"operationType":"create","record":{"recordName":"ok","recordType":"Note"}},{"operationType":"update","record":{"recordName":"missing","recordType":"Note","recordChangeTag":"x"}}]}"#
        _ = try await f.call("records/modify", atomic, db: "private", user: f.aliceToken)
        #expect(try Self.notes(f, f.alice.userRecordName).isEmpty, "the batch rolled back, and its notification with it")
    }

    @Test func theWebCourierDeliversEveryNotificationInOrderToItsUser() async throws {
        // The hold is long enough for a write to land on a busy machine while a poll waits for it.
        let f = try await APIFixture { $0.courierHold = .milliseconds(8_000) }
        let create = try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, user: f.aliceToken, rawDevice: true)
        let url = try #require(create.json["webcourierURL"]?.string)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"A"}}}]}"#, db: "private", user: f.aliceToken)
        _ = try await Self.subscribe(f, #"{"subscriptionID":"all","subscriptionType":"database"}"#, db: "private", user: f.aliceToken)
        // Nothing yet: the poll holds, then answers an empty body.
        let start = ContinuousClock.now
        let (empty, r0) = try await f.session.data(from: URL(string: url)!)
        #expect((r0 as? HTTPURLResponse)?.statusCode == 200 && empty.isEmpty && ContinuousClock.now - start >= .milliseconds(1_000))
        // A poll waiting while a write happens gets it within the hold.
        async let waiting = f.session.data(from: URL(string: url)!)
        try await Task.sleep(for: .milliseconds(300))
        _ = try await Self.modify(f, #"{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}"#, db: "private", zone: "A", user: f.aliceToken)
        let (d1, _) = try await waiting
        let first = try JSONSerialization.jsonObject(with: d1) as? [String: Any]
        #expect(((first?["ck"] as? [String: Any])?["met"] as? [String: Any])?["sid"] as? String == "all", "\(String(decoding: d1, as: UTF8.self))")
        // Three more writes: three polls, in order, then empty.
        _ = try await Self.modify(f, (2...4).map { #"{"operationType":"create","record":{"recordName":"n\#($0)","recordType":"Note"}}"# }.joined(separator: ","),
                                  db: "private", zone: "A", user: f.aliceToken)
        var nids: [String] = []
        for _ in 0..<3 {
            let (d, _) = try await f.session.data(from: URL(string: url)!)
            nids.append(((try JSONSerialization.jsonObject(with: d) as? [String: Any])?["ck"] as? [String: Any])?["nid"] as? String ?? "")
        }
        let logged = try Self.delivered(f).entries(for: f.alice.userRecordName, after: 0).map(\.notificationID)
        #expect(nids == Array(logged.dropFirst()), "each notification once, oldest first")
        // An unknown token is CloudKit's NOT_FOUND envelope.
        let (bad, rb) = try await f.session.data(from: URL(string: url.replacingOccurrences(of: "/development/", with: "/development/x"))!)
        #expect((rb as? HTTPURLResponse)?.statusCode == 404 && String(decoding: bad, as: UTF8.self).contains("NOT_FOUND"))
        // Bob cannot bind Alice's token.
        let stolen = try await f.call("tokens/register", #"{"apnsEnvironment":"DEVELOPMENT","apnsToken":"\#(create.json["apnsToken"]?.string ?? "")"}"#, user: f.bobToken, rawDevice: true)
        #expect(stolen.status == 404)
        // Without a signed-in user there is no token to make.
        #expect(try await f.call("tokens/create", #"{"apnsEnvironment":"DEVELOPMENT"}"#, rawDevice: true).status == 421)
    }
}
