import Foundation
import StratusModel

/// Migration v19's work: the log of one row per transaction (`notification_batches`, every recipient's
/// notifications in one text) becomes one row per transaction and recipient (`notification_log`), read in chunks.
/// A position is `batch << 20 | index`; the index was the notification's place among everyone's in its batch and
/// becomes its place among its own user's, so the positions courier tokens and devices were delivered through are
/// renumbered the same way.
enum NotificationLogConversion {
    /// The columns it reads: of the tables delivered through the log, and of the old log.
    private enum Column: String, TableColumn {
        case token, user, id, entries, deliveredThrough = "delivered_through", createdAt = "created_at"
    }

    private static let mark = Selection<Column>([.token, .user, .deliveredThrough])
    private static let batch = Selection<Column>([.id, .createdAt, .entries])

    static func run(_ s: any SQLSession) throws {
        // Positions inside a batch that courier tokens and devices were delivered through (at a batch's end or
        // before any batch, a position means the same after).
        var marks: [Int64: [(table: String, key: String, user: String, index: Int64)]] = [:]
        for table in ["courier_tokens", "apns_devices"] {
            try s.each("SELECT \(mark.sql) FROM \(table)", []) { r in
                let row = NamedRow(r, mark)
                let p = row.int64(.deliveredThrough) ?? 0
                let index = p & Int64(NotificationBatch.maximumPerBatch - 1)
                guard p > 0, index != Int64(NotificationBatch.maximumPerBatch - 1) else { return }
                marks[NotificationBatch.batch(of: p), default: []].append((table, row.string(.token) ?? "",
                        row.string(.user) ?? "", index))
            }
        }
        var after: Int64 = 0
        var total: Int64 = 0
        var users: [String: Int64] = [:]
        var last: Int64 = 0
        while true {
            let rows = try s.all("SELECT \(batch.sql) FROM notification_batches WHERE id > ? ORDER BY id LIMIT 500",
                                 [after]) { r in
                let row = NamedRow(r, batch)
                return (row.int64(.id) ?? 0, row.int64(.createdAt) ?? 0, row.string(.entries) ?? "")
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
            try s.execute(#"INSERT INTO notification_recipients("user", bytes, expired_through) VALUES (?, ?, 0)"#,
                          user, bytes)
        }
        try Meta.set(s, .notificationLogBytes, total)
        try Meta.set(s, .notificationLastBatch, last)
    }
}
