import Foundation
import StratusModel

/// What the console shows of notifications: the log across users, webhook deliveries, and a test send.
extension NotificationStore {
    /// The newest notifications of every user, newest first, with how far courier tokens have taken each.
    public func recentNotifications(limit: Int = 200) throws(StratusError) -> [NotificationLogEntry] {
        try saveCourierProgress()
        return try read { db, _ in
            let tokens = try CourierTokens.progress(db)
            var out: [NotificationLogEntry] = []
            // A row holds at least one notification, so `limit` rows are always enough.
            // Each recipient numbers their own rows: across users, the newest are the last written.
            let rows = try NotificationLog.newest(limit: limit, db)
            for row in rows where out.count < limit {
                let batch = row.batch
                let createdAt = row.createdAt
                for (i, e) in NotificationBatch.decode(row.entries).enumerated().reversed() where out.count < limit {
                    let position = NotificationBatch.position(batch: batch, index: i)
                    let mine = tokens.filter { $0.user == row.user && $0.createdAt <= createdAt }
                    out.append(NotificationLogEntry(id: position, notificationID: NotificationBatch.nid(salt: nidSalt,
                            user: row.user, position: position), user: row.user,
                                                    subscriptionID: e.subscriptionID, scope: DatabaseScope(rawValue: e.scope) ?? .private,
                                                    recordName: e.recordName, reason: e.reason, createdAt: createdAt, courierTokens: mine.count,
                                                    courierDelivered: mine.filter { $0.through >= position }.count))
                }
            }
            return out
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
        let bell = self.bell
        let key = bellKey(user)
        let salt = nidSalt
        let policy = notificationPolicy
        let counter = notificationCounter
        let upkeep = self.upkeep
        let nid = try write { db, _ in
            // `ck.test` marks it (after `nid` in key order, as `render` places a member that is not fet/met).
            let aps = NotificationPayload.aps(NotificationInfo(alertBody: text))
            let heading = NotificationBatch.Heading(user: user, scope: "private", recordName: nil, reason: nil,
                                                    aps: aps)
            let entry = NotificationBatch.Entry(heading: heading, subscriptionID: Self.testSubscriptionID,
                                                member: #""test":true"#)
            let appended = try NotificationLog.append(createdAt: WallClock.nowMillis(),
                                                      rows: [NotificationLog.Row(user: user,
                                                              text: NotificationBatch.encode([entry]),
                                                              count: 1)], policy: policy, db)
            let batch = appended.batches[user] ?? 0
            db.afterCommit {
                counter.add(notifications: 0, webhooks: 0, evicted: appended.evicted)
                upkeep.appended(appended.bytes)
                bell.ring([key])
            }
            return NotificationBatch.nid(salt: salt, user: user, position: NotificationBatch.position(batch: batch,
                    index: 0))
        }
        tendLog()
        return nid
    }
}
