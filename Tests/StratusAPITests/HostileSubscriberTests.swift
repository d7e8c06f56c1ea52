import Foundation
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore

/// A signed-up user who tries to fill the server through subscriptions and their notifications: capped
/// subscriptions, short alerts, fields pruned to fit, and a log that lives on its own budget, charged to no one's
/// storage quota, so other users keep writing.
@Suite struct HostileSubscriberTests {
    static func subscribe(_ f: APIFixture, _ ids: Range<Int>, alert: String, user: String, db: String = "public") async throws -> [JSON] {
        let ops = ids.map { i in
            #"{"operationType":"create","subscription":{"subscriptionID":"s\#(i)","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create","update"],"notificationInfo":{"alertBody":"\#(alert)","desiredKeys":["body","title"]}}}"#
        }
        let r = try await f.call("subscriptions/modify", #"{"operations":[\#(ops.joined(separator: ","))]}"#, db: db, user: user)
        return r.json["subscriptions"]?.array ?? []
    }

    static func post(_ f: APIFixture, _ name: String, body: Int, user: String) async throws -> APIFixture.Reply {
        let text = String(repeating: "b", count: body)
        return try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Post","fields":{"title":{"value":"T \#(name)"},"body":{"value":"\#(text)"}}}}]}"#, user: user)
    }

    @Test(arguments: Backend.allCases) func oneUserCannotFillTheServerThroughNotifications(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend, configure: {
            $0.storageQuotaBytes = 3 << 20
            $0.notifications.subscriptionsPerUser = 40
            $0.notifications.logBudgetBytes = 8_000
        }) else { return }
        let env = try f.app.store.environment(f.container, .development)
        // An alert far past what a notification carries is refused, and nothing is saved.
        let huge = try await Self.subscribe(f, 0..<1, alert: String(repeating: "x", count: 60_000), user: f.aliceToken)
        #expect(huge.first?.code == "BAD_REQUEST" && huge.first?["reason"]?.string?.contains("1024") == true)
        // Alice fills her cap with the longest alert allowed; the one past it is LIMIT_EXCEEDED.
        let alert = String(repeating: "a", count: 990)
        let saved = try await Self.subscribe(f, 0..<40, alert: alert, user: f.aliceToken)
        #expect(saved.allSatisfy { $0.code == nil }, "\(saved.prefix(1))")
        let over = try await Self.subscribe(f, 40..<42, alert: alert, user: f.aliceToken)
        #expect(over.map(\.code) == ["LIMIT_EXCEEDED", "LIMIT_EXCEEDED"])
        #expect(try env.subscriptions.all(in: .public, owner: f.alice.userRecordName).count == 40)
        // Bob writes posts with big bodies that Alice's subscriptions all ask for: each write fires 40 notifications.
        // The log drops its oldest past its budget, and neither Bob nor anyone else is charged for it.
        for i in 0..<40 {
            let r = try await Self.post(f, "p\(i)", body: 3_000, user: f.bobToken)
            #expect(r.status == 200 && r.json.records.first?.code == nil, "post \(i): \(r.text.prefix(200))")
        }
        let r = try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"mine","recordType":"Note"}}]}"#, db: "private", user: f.aliceToken)
        #expect(r.json.records.first?.code == nil, "another user's write still goes through: \(r.text.prefix(200))")
        env.notifications.deliverHandedOff()
        env.notifications.tendLog()
        let logBytes = try env.core.read { s, _ in try NotificationLog.bytes(s) }
        #expect(logBytes <= 8_000, "the log keeps to its budget: \(logBytes)")
        #expect(try env.quota.storageUsage().totalBytes < 3 << 20)
        // What Alice gets is short: the alert (referenced in the log, not copied) and the fields that fit, marked pruned.
        let notes = try env.notifications.entries(for: f.alice.userRecordName, after: 0, limit: 50, skippingExpired: true)
        #expect(!notes.isEmpty)
        for n in notes {
            let o = try #require(try JSONSerialization.jsonObject(with: Data(n.payload.utf8)) as? [String: Any])
            #expect(((o["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == alert)
            let ck = try #require(o["ck"] as? [String: Any])
            #expect(ck["prn"] as? Int == 1 && ((ck["qry"] as? [String: Any])?["af"] as? [String: Any])?["title"] != nil)
            #expect(((ck["qry"] as? [String: Any])?["af"] as? [String: Any])?["body"] == nil, "the 3 KB body does not fit a notification")
            #expect(n.payload.utf8.count < 4096, "a notification fits APNs' 4 KB")
        }
        let stored = try env.core.read { s, _ in try s.one("SELECT entries FROM notification_log ORDER BY batch DESC LIMIT 1", []) { $0.string(0) } ?? "" }
        #expect(!stored.contains(alert) && stored.utf8.count < 40 * 300, "the log references the alert: \(stored.utf8.count) bytes for 40 notifications")
        // A listener that fell behind what the budget dropped is told to start afresh.
        do {
            _ = try env.notifications.entries(for: f.alice.userRecordName, after: 1)
            Issue.record("reading from the first notification should be CHANGE_TOKEN_EXPIRED once the budget dropped it")
        } catch { #expect(error.code == .changeTokenExpired) }
    }

    @Test func theEnvironmentCapsSubscriptionsOfAllUsersTogether() async throws {
        let f = try await APIFixture { $0.notifications.subscriptionsPerEnvironment = 3 }
        #expect(try await Self.subscribe(f, 0..<2, alert: "hi", user: f.bobToken).allSatisfy { $0.code == nil })
        #expect(try await Self.subscribe(f, 0..<2, alert: "hi", user: f.aliceToken).map(\.code) == [nil, "LIMIT_EXCEEDED"])
        // Deleting frees room.
        _ = try await f.call("subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"s0"}}]}"#, user: f.bobToken)
        #expect(try await Self.subscribe(f, 5..<6, alert: "hi", user: f.aliceToken).first?.code == nil)
    }
}
