import Foundation
import GRDB
import StratusModel

/// What the console shows of notifications: the log across users, webhook deliveries, and a test send.
extension EnvironmentStore {
    /// The newest notifications of every user, newest first, with how far courier tokens have taken each.
    public func recentNotifications(limit: Int = 200) throws(StratusError) -> [NotificationLogEntry] {
        try saveCourierProgress()
        return try read { db, _ in
            try Row.fetchAll(db, sql: """
                SELECT n.id, n.nid, n.user, n.subscription_id, n.scope, n.record_name, n.reason, n.created_at,
                       (SELECT COUNT(*) FROM courier_tokens t WHERE t.user = n.user AND t.created_at <= n.created_at),
                       (SELECT COUNT(*) FROM courier_tokens t WHERE t.user = n.user AND t.delivered_through >= n.id)
                FROM notifications n ORDER BY n.id DESC LIMIT ?
                """, arguments: [limit]).map {
                NotificationLogEntry(id: $0[0], notificationID: $0[1], user: $0[2], subscriptionID: $0[3], scope: DatabaseScope(rawValue: $0[4]) ?? .private,
                                     recordName: $0[5], reason: $0[6], createdAt: $0[7], courierTokens: $0[8], courierDelivered: $0[9])
            }
        }
    }

    /// The newest webhook deliveries, newest first.
    public func recentWebhookDeliveries(limit: Int = 200) throws(StratusError) -> [WebhookDeliveryLogEntry] {
        try read { db, _ in
            try Row.fetchAll(db, sql: """
                SELECT d.webhook_id, w.url, d.nid, d.payload, d.state, d.attempts, d.last_error, d.created_at FROM webhook_deliveries d
                JOIN webhooks w ON w.id = d.webhook_id ORDER BY d.id DESC LIMIT ?
                """, arguments: [limit]).map { row in
                let body = (try? JSONSerialization.jsonObject(with: Data((row[3] as String).utf8))) as? [String: Any] ?? [:]
                return WebhookDeliveryLogEntry(webhookID: row[0], url: row[1], notificationID: row[2], recordType: body["recordType"] as? String ?? "",
                                               recordName: body["recordName"] as? String ?? "", reason: body["reason"] as? String ?? "",
                                               state: row[4], attempts: row[5], lastError: row[6], createdAt: row[7])
            }
        }
    }

    /// The subscription ID a console test notification carries.
    public static let testSubscriptionID = "_stratus_console_test"

    /// Appends a test notification for `user` (an alert with `message`): their courier tokens and SSE streams
    /// deliver it like any other. Returns its notification ID.
    public func sendTestNotification(to user: String, message: String) throws(StratusError) -> String {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= 1000 else { throw .badRequest("a test notification needs a message of 1 to 1,000 bytes") }
        guard !text.unicodeScalars.contains("\u{0}") else { throw .badRequest("the message may not contain U+0000") }
        var ids = NotificationIDs()
        let nid = ids.next()
        let ck: PayloadJSON = .object([("ce", .int(environment == .production ? 2 : 1)), ("cid", .string(container.rawValue)),
                                       ("ckuserid", .string(user)), ("nid", .string(nid)), ("test", .bool(true))])
        let payload = PayloadJSON.object([("aps", .object([("alert", .object([("body", .string(text))]))])), ("ck", ck)]).text
        let bell = self.bell
        let key = bellKey(user)
        try write { db, _ in
            try db.execute(sql: """
                INSERT INTO notifications(id, nid, user, subscription_id, scope, record_name, reason, created_at, payload) VALUES (?, ?, ?, ?, 'private', NULL, NULL, ?, ?)
                """, arguments: [try NotificationOutbox.nextPosition(db), nid, user, Self.testSubscriptionID, Clock.nowMillis(), payload])
            db.afterNextTransaction(onCommit: { _ in bell.ring([key]) })
        }
        return nid
    }
}
