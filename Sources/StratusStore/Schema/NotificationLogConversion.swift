import Foundation
import StratusModel

/// Migration v19's work: the log of one row per transaction (`notification_batches`, every recipient's
/// notifications in one text) becomes one row per transaction and recipient (`notification_log`), read in chunks.
/// A position is `batch << 20 | index`; the index was the notification's place among everyone's in its batch and
/// becomes its place among its own user's, so the positions courier tokens and devices were delivered through are
/// renumbered the same way.
enum NotificationLogConversion {
    static func run(_ s: any SQLSession) throws {
        // Positions inside a batch that courier tokens and devices were delivered through (at a batch's end or
        // before any batch, a position means the same after).
        var marks: [Int64: [(table: String, key: String, user: String, index: Int64)]] = [:]
        for table in ["courier_tokens", "apns_devices"] {
            try s.each(#"SELECT token, "user", delivered_through FROM \#(table)"#, []) { r in
                let p = r.int64(2) ?? 0
                let index = p & Int64(NotificationBatch.maximumPerBatch - 1)
                guard p > 0, index != Int64(NotificationBatch.maximumPerBatch - 1) else { return }
                marks[NotificationBatch.batch(of: p), default: []].append((table, r.string(0) ?? "", r.string(1) ?? "", index))
            }
        }
        var after: Int64 = 0
        var total: Int64 = 0
        var users: [String: Int64] = [:]
        var last: Int64 = 0
        while true {
            let rows = try s.all("SELECT id, created_at, entries FROM notification_batches WHERE id > ? ORDER BY id LIMIT 500", [after]) {
                ($0.int64(0) ?? 0, $0.int64(1) ?? 0, $0.string(2) ?? "")
            }
            guard let newest = rows.last?.0 else { break }
            after = newest
            last = newest
            for (batch, createdAt, text) in rows {
                var order: [String] = []
                var byUser: [String: [(old: Int, entry: NotificationBatch.Entry)]] = [:]
                for (i, e) in NotificationBatch.entries(text, of: nil) {
                    if byUser[e.user] == nil { order.append(e.user) }
                    byUser[e.user, default: []].append((i, e))
                }
                for user in order {
                    let mine = byUser[user] ?? []
                    let encoded = NotificationBatch.encode(mine.map(\.entry))
                    let bytes = Int64(user.utf8.count + encoded.utf8.count + NotificationLog.rowOverhead)
                    try s.execute(#"INSERT INTO notification_log("user", batch, created_at, entries, notifications, bytes) VALUES (?, ?, ?, ?, ?, ?)"#,
                                  user, batch, createdAt, encoded, mine.count, bytes)
                    total += bytes
                    users[user, default: 0] += bytes
                }
                for mark in marks[batch] ?? [] {
                    let before = (byUser[mark.user] ?? []).filter { Int64($0.old) <= mark.index }.count
                    let position = before == 0 ? NotificationBatch.end(of: batch - 1) : NotificationBatch.position(batch: batch, index: before - 1)
                    try s.execute("UPDATE \(mark.table) SET delivered_through = ? WHERE token = ?", position, mark.key)
                }
            }
        }
        for (user, bytes) in users {
            try s.execute(#"INSERT INTO notification_recipients("user", bytes, expired_through) VALUES (?, ?, 0)"#, user, bytes)
        }
        try Meta.set(s, .notificationLogBytes, total)
        try Meta.set(s, .notificationLastBatch, last)
    }
}
