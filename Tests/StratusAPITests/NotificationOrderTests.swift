import Foundation
import Synchronization
import Testing
@testable import StratusAPI
import StratusModel
@testable import StratusStore
import StratusTestSupport

/// Each recipient's notifications have an order of their own (`NotificationLog`): on PostgreSQL, a write that
/// notifies Bob, or Alice, does not wait for an open transaction that holds a notification of Alice's (writes hand
/// their changes to the fan-out and go on); the fan-out's notification for Alice waits for it, takes the next number
/// of hers, and a listener of hers reads both, in order, once each.
@Suite struct NotificationOrderTests {
    @Test func writesNotifyingDifferentUsersDoNotWaitForEachOther() async throws {
        guard let f = try await APIFixture.make(.postgres) else { return }
        let env = try f.app.store.environment(f.container, .development)
        let (alice, bob) = (f.alice.userRecordName, f.bob.userRecordName)
        // Alice hears every public Post; Bob hears his own zone.
        let posts = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"posts","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create"],"notificationInfo":{"shouldSendContentAvailable":true}}}]}"#
        #expect(try await f.call("subscriptions/modify", posts, user: f.aliceToken).json["subscriptions"]?.array?.first?.code == nil)
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: f.bobToken)
        let zone = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Z"},"notificationInfo":{"shouldSendContentAvailable":true}}}]}"#
        #expect(try await f.call("subscriptions/modify", zone, db: "private", user: f.bobToken).json["subscriptions"]?.array?.first?.code == nil)
        // The types exist first: a Development write that adds one runs holding the environment alone.
        for (name, type, db, token) in [("b0", "Note", "private", f.bobToken), ("p0", "Post", "public", f.bobToken)] {
            let zone = type == "Note" ? #""zoneID":{"zoneName":"Z"},"# : ""
            let r = try await f.call("records/modify", #"{\#(zone)"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"\#(type)"}}]}"#, db: db, user: token)
            #expect(r.status == 200, "\(r.text.prefix(200))")
        }
        let aliceStart = try await offPool { env.notifications.deliverHandedOff(); return try env.notifications.lastNotificationID(for: alice) }

        // A write into a third user's database holds a notification for Alice, uncommitted.
        let held = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let heldBatch = Mutex<Int64>(0)
        let carol = DatabaseID.privateDatabase(of: "_" + String(repeating: "c3", count: 16))
        Thread {
            _ = try? env.core.write(in: carol) { s, _, _ in
                let heading = NotificationBatch.Heading(user: alice, scope: "private", recordName: "held", reason: nil,
                                                        aps: NotificationPayload.aps(NotificationInfo(alertBody: "held")))
                let entry = NotificationBatch.Entry(heading: heading, subscriptionID: "held", member: #""test":true"#)
                let row = NotificationLog.Row(user: alice, text: NotificationBatch.encode([entry]), count: 1)
                let appended = try NotificationLog.append(createdAt: WallClock.nowMillis(), rows: [row], policy: NotificationPolicy(), s)
                heldBatch.withLock { $0 = appended.batches[alice] ?? 0 }
                held.signal()
                release.wait()
            }
        }.start()
        held.wait()
        var released = false
        defer { if !released { release.signal() } }

        // Bob's notifying write goes through while Alice's is open.
        let bobWrite = Self.background { try await f.call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"create","record":{"recordName":"b1","recordType":"Note"}}]}"#,
                                                          db: "private", user: f.bobToken).status }
        #expect(await bobWrite.finished(within: .seconds(20)) == 200, "a write notifying Bob waited for one notifying Alice")
        // A Post (Bob's, into the public database) notifies Alice: the write goes through too; its notification
        // waits in the outbox, and the fan-out appends it only after her open one.
        let post = Self.background { try await f.call("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Post"}}]}"#,
                                                      user: f.bobToken).status }
        #expect(await post.finished(within: .seconds(20)) == 200, "a write notifying Alice waited for an open notification of hers")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await offPool { try env.notifications.notificationPage(for: alice, after: aliceStart) }.notifications.isEmpty,
                "two notifications of Alice's were numbered at once")
        release.signal()
        released = true
        try await offPool { env.notifications.deliverHandedOff() }

        // Alice's listener reads the held notification, then the Post's, with later numbers, once each.
        let page = try await offPool { try env.notifications.notificationPage(for: alice, after: aliceStart) }
        let batches = page.notifications.map { NotificationBatch.batch(of: $0.id) }
        #expect(batches.count == 2 && batches[0] == heldBatch.withLock { $0 } && batches[1] > batches[0], "\(batches)")
        #expect(page.notifications.map(\.recordName) == ["held", "p1"])
        #expect(try await offPool { try env.notifications.notificationPage(for: alice, after: page.through) }.notifications.isEmpty)
    }

    /// A store whose recipients carry no order of their own yet (made before there was one, or restored from a backup
    /// made then) numbers each recipient's next notification after the one order's last, so a position handed out
    /// then reads on: nothing is skipped or read twice.
    @Test(arguments: Backend.allCases) func positionsFromTheOneOrderReadOn(_ backend: Backend) async throws {
        guard let f = try await APIFixture.make(backend) else { return }
        let env = try f.app.store.environment(f.container, .development)
        let alice = f.alice.userRecordName
        _ = try await f.call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#, db: "private", user: f.aliceToken)
        let zone = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":{"zoneName":"Z"},"notificationInfo":{"shouldSendContentAvailable":true}}}]}"#
        _ = try await f.call("subscriptions/modify", zone, db: "private", user: f.aliceToken)
        func note(_ name: String) async throws {
            let r = try await f.call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note"}}]}"#,
                                     db: "private", user: f.aliceToken)
            #expect(r.status == 200)
            try await offPool { env.notifications.deliverHandedOff() }
        }
        try await note("n1")
        let afterN1 = try await offPool { try env.notifications.lastNotificationID(for: alice) }
        // The one order had gone 100 batches further (other users' notifications); Alice's row carries no order.
        let legacy = NotificationBatch.batch(of: afterN1) + 100
        try await offPool {
            try env.core.write { s, _ in
                try s.execute("UPDATE notification_recipients SET last_batch = 0")
                try s.execute("DELETE FROM meta WHERE key = 'notification_last_batch'")
                try s.execute("INSERT INTO meta(key, value) VALUES ('notification_last_batch', ?)", legacy)
            }
        }
        #expect(try await offPool { try env.notifications.lastNotificationID(for: alice) } == NotificationBatch.end(of: legacy))
        try await note("n2")
        try await offPool { env.notifications.deliverHandedOff() }
        let fromN1 = try await offPool { try env.notifications.notificationPage(for: alice, after: afterN1) }
        #expect(fromN1.notifications.map(\.recordName) == ["n2"])
        #expect(fromN1.notifications.map { NotificationBatch.batch(of: $0.id) } == [legacy + 1])
        #expect(try await offPool { try env.notifications.notificationPage(for: alice, after: fromN1.through) }.notifications.isEmpty)
    }

    /// An async call run on its own, with a wait that gives up.
    final class Background: @unchecked Sendable {
        private let result = Mutex<Int?>(nil)
        init(_ body: @escaping @Sendable () async throws -> Int) {
            Task { let r = (try? await body()) ?? -1; result.withLock { $0 = r } }
        }
        /// The result, or nil when it has not come within `limit`.
        func finished(within limit: Duration) async -> Int? {
            let end = ContinuousClock.now + limit
            while ContinuousClock.now < end {
                if let r = result.withLock({ $0 }) { return r }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return result.withLock { $0 }
        }
    }

    static func background(_ body: @escaping @Sendable () async throws -> Int) -> Background { Background(body) }
}
