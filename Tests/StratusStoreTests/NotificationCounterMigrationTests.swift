import Foundation
import Testing
import StratusTestSupport
@testable import StratusModel
@testable import StratusStore

/// A store written before each recipient had an order of their own (v24) numbered every notification in one order.
/// Opening it gives every recipient a counter that starts where that order stood, so a listener's position from
/// before reads on — nothing skipped, nothing twice — and each recipient numbers on by themselves.
@Suite struct NotificationCounterMigrationTests {
    static func append(_ user: String, _ env: EnvironmentStore) throws -> Int64 {
        try env.core.write { s, _ in
            let heading = NotificationBatch.Heading(user: user, scope: "private", recordName: "r", reason: nil,
                                                    aps: NotificationPayload.aps(NotificationInfo(alertBody: "hi")))
            let text = NotificationBatch.encode([NotificationBatch.Entry(heading: heading, subscriptionID: "s", member: #""test":true"#)])
            let appended = try NotificationLog.append(createdAt: WallClock.nowMillis(), rows: [NotificationLog.Row(user: user, text: text, count: 1)],
                                                      policy: NotificationPolicy(), s)
            return appended.batches[user] ?? -1
        }
    }

    @Test(arguments: Backend.allCases)
    func theOneOrderBecomesEachRecipientsOwn(_ backend: Backend) async throws {
        try await offPool {
            guard let f = try Fixture.make(backend) else { return }
            // Alice's and Bob's notifications as the previous release numbered them: 1 and 2 in one order, and the
            // order had reached 40 with other users' notifications since dropped.
            _ = try Self.append("_alice", f.dev)
            _ = try Self.append("_bob", f.dev)
            try f.dev.core.database.write { s in
                try s.execute(#"UPDATE notification_log SET batch = CASE WHEN "user" = '_alice' THEN 1 ELSE 2 END"#, [])
                try s.execute("ALTER TABLE notification_recipients DROP COLUMN last_batch", [])
                try s.execute("DELETE FROM meta WHERE key = 'notification_last_batch'", [])
                try s.execute("INSERT INTO meta(key, value) VALUES ('notification_last_batch', 40)", [])
                try Fixture.forgetMigration("v24-notification-counters", s)
            }
            let reopened = try f.reopen()
            defer { reopened.store.close() }
            let env = reopened.dev
            // A listener of Alice's that read her first notification, or took "now" before the upgrade.
            let afterFirst = NotificationBatch.end(of: 1)
            #expect(try env.notifications.lastNotificationID(for: "_alice") == NotificationBatch.end(of: 40))
            // Each recipient numbers on by themselves, after the one order.
            #expect(try Self.append("_alice", env) == 41)
            #expect(try Self.append("_alice", env) == 42)
            #expect(try Self.append("_bob", env) == 41)
            #expect(try Self.append("_carol", env) == 41)
            let page = try env.notifications.notificationPage(for: "_alice", after: afterFirst)
            #expect(page.notifications.map { NotificationBatch.batch(of: $0.id) } == [41, 42])
            #expect(try env.notifications.notificationPage(for: "_alice", after: page.through).notifications.isEmpty)
            #expect(try env.notifications.notificationPage(for: "_bob", after: 0).notifications.map { NotificationBatch.batch(of: $0.id) } == [2, 41])
        }
    }
}
