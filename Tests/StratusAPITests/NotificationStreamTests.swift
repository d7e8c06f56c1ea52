import Foundation
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore
import StratusTestSupport

/// Server-Sent Events: a user's notifications as they happen, resumable with Last-Event-ID, and nobody else's.
@Suite struct NotificationStreamTests {
    static func open(_ f: APIFixture, user: String?, lastEventID: String? = nil) throws -> RawClient {
        let c = try RawClient(port: f.app.port, receiveTimeout: 8)
        var q = "ckAPIToken=\(f.devToken)"
        if let user { q += "&ckWebAuthToken=\(APIFixture.encode(user))" }
        let last = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
        c.send("GET /database/1/\(f.container.rawValue)/development/notifications/stream?\(q) HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\(last)\r\n")
        return c
    }

    static func events(_ text: String) -> [(id: String, data: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            let lines = block.split(separator: "\n")
            guard let id = lines.first(where: { $0.hasPrefix("id: ") }), let data = lines.first(where: { $0.hasPrefix("data: ") }) else { return nil }
            return (String(id.dropFirst(4)), String(data.dropFirst(6)))
        }
    }

    static func count(_ n: Int) -> @Sendable (String) -> Bool { { text in events(text).count >= n } }

    func write(_ f: APIFixture, _ names: [String], user: String) async throws {
        let ops = names.map { #"{"operationType":"create","record":{"recordName":"\#($0)","recordType":"Note"}}"# }.joined(separator: ",")
        _ = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(ops)]}"#, db: "private", user: user)
    }

    @Test func eventsArriveResumeAfterADropAndStayWithTheirUser() async throws {
        let f = try await APIFixture()
        for token in [f.aliceToken, f.bobToken] {
            _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: token)
            _ = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#,
                                 db: "private", user: token)
        }
        let alice = try Self.open(f, user: f.aliceToken)
        let bob = try Self.open(f, user: f.bobToken)
        let head = await alice.read { $0.contains(": stream of notifications") }
        #expect(head.hasPrefix("HTTP/1.1 200") && head.lowercased().contains("content-type: text/event-stream"), "\(head)")
        _ = await bob.read { $0.contains(": stream of notifications") }

        try await write(f, ["a1", "a2"], user: f.aliceToken)
        let first = Self.events(await alice.read(until: Self.count(2)))
        #expect(first.count == 2 && first.allSatisfy { $0.data.contains(#""met""#) })
        let logged = try NotificationTests.delivered(f).entries(for: f.alice.userRecordName, after: 0)
        #expect(first.map(\.id) == logged.map(\.notificationID), "id: is the notification's nid, in log order")

        // The connection drops; two more writes happen; reconnecting after the first event replays the rest.
        alice.close()
        try await write(f, ["a3", "a4"], user: f.aliceToken)
        let resumed = try Self.open(f, user: f.aliceToken, lastEventID: first[0].id)
        let replay = Self.events(await resumed.read(until: Self.count(3)))
        let all = try NotificationTests.delivered(f).entries(for: f.alice.userRecordName, after: 0).map(\.notificationID)
        #expect(replay.map(\.id) == Array(all.dropFirst()), "nothing lost, nothing repeated")

        // Bob's stream carried none of Alice's notifications.
        try await write(f, ["b1"], user: f.bobToken)
        let bobs = Self.events(await bob.read(until: Self.count(1)))
        #expect(bobs.count == 1 && !bobs.contains { all.contains($0.id) })

        // An unknown Last-Event-ID is CloudKit's expired-token answer; no user is AUTHENTICATION_REQUIRED.
        let stale = try Self.open(f, user: f.aliceToken, lastEventID: "not-a-kept-id")
        let staleReply = await stale.response()
        #expect(staleReply?.status == 400 && String(decoding: staleReply?.body ?? Data(), as: UTF8.self).contains("CHANGE_TOKEN_EXPIRED"))
        let anonymous = await (try Self.open(f, user: nil)).response()
        #expect(anonymous?.status == 421)
    }
}
