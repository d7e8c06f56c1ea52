import Foundation
import GRDB
import Testing
@testable import StratusModel
@testable import StratusStore

/// A data directory written before the log moved to one row per transaction keeps its notifications: each becomes a
/// batch of one with the same payload, and courier tokens and the retention keep their places.
@Suite struct NotificationLogMigrationTests {
    @Test func oldNotificationsSurviveTheMoveToBatches() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("development.sqlite")
        let old = #"{"aps":{"alert":{"body":"Hi \"there\""},"content-available":1},"ck":{"ce":1,"cid":"iCloud.a.b","ckuserid":"_u","nid":"x","qry":{"dbs":1,"fo":1,"rid":"r1","sid":"s","zid":"_defaultZone","zoid":"_defaultOwner"}}}"#
        do {
            let q = try DatabaseQueue(path: file.path)
            try EnvironmentMigrations.migrator.migrate(q, upTo: "v6-webhooks")
            try q.write { db in
                for (id, user) in [(1, "_u"), (2, "_v"), (3, "_u")] {
                    try db.execute(sql: "INSERT INTO notifications(id, nid, user, subscription_id, scope, record_name, reason, created_at, payload) VALUES (?, ?, ?, 's', 'public', 'r1', 1, ?, ?)",
                                   arguments: [id, "n\(id)", user, WallClock.nowMillis(), old])
                }
                try db.execute(sql: "INSERT INTO courier_tokens(token, user, created_at, delivered_through) VALUES ('t', '_u', 0, 1)")
            }
        }
        let env = try EnvironmentStore(container: try ContainerID("iCloud.a.b"), environment: .development, file: file,
                                       assetsDirectory: dir.appendingPathComponent("assets"), durability: .relaxed)
        let all = try env.notifications.entries(for: "_u", after: 0)
        #expect(all.count == 2 && all.map(\.recordName) == ["r1", "r1"])
        let payload = try #require(try JSONSerialization.jsonObject(with: Data(all[0].payload.utf8)) as? [String: Any])
        #expect(((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String == "Hi \"there\"")
        let ck = try #require(payload["ck"] as? [String: Any])
        #expect((ck["qry"] as? [String: Any])?["rid"] as? String == "r1" && ck["nid"] as? String == all[0].notificationID && ck["cid"] as? String == "iCloud.a.b")
        // The courier token had answered the first: it goes on with the third.
        let token = try #require(try env.notifications.courierToken("t"))
        #expect(try env.notifications.entries(for: "_u", after: token.deliveredThrough).map(\.id) == [all[1].id])
        // A notification ID resumes where it was.
        #expect(try env.notifications.notificationPosition(nid: all[0].notificationID, user: "_u") == all[0].id)
        #expect(throws: StratusError.self) { try env.notifications.notificationPosition(nid: all[0].notificationID, user: "_v") }
    }
}
