import Foundation
import StratusModel

/// Appending to and dropping from the notification log (`notification_batches`, see `NotificationBatch`), with its
/// size kept in step: each batch row carries its bytes and `meta.notification_log_bytes` their sum, so the log is
/// held to its own budget (oldest batches first) and the storage quota can leave it out. Everything that drops
/// batches moves `notifications_expired_through`, so a listener behind what was dropped is told to start afresh.
enum NotificationLog {
    /// Appends one batch and, past `budget` bytes, drops the oldest batches (never this one) until the log is under
    /// nine tenths of it.
    static func append(id: Int64, createdAt: Int64, groups: [NotificationBatch.Group], budget: Int64, _ s: any SQLSession) throws {
        try append(id: id, createdAt: createdAt, users: NotificationBatch.users(groups), text: NotificationBatch.encode(groups), budget: budget, s)
    }

    static func append(id: Int64, createdAt: Int64, entries: [NotificationBatch.Entry], budget: Int64, _ s: any SQLSession) throws {
        try append(id: id, createdAt: createdAt, users: NotificationBatch.users(entries), text: NotificationBatch.encode(entries), budget: budget, s)
    }

    private static func append(id: Int64, createdAt: Int64, users: String, text: String, budget: Int64, _ s: any SQLSession) throws {
        let bytes = Int64(users.utf8.count + text.utf8.count)
        try s.execute("INSERT INTO notification_batches(id, created_at, users, entries, bytes) VALUES (?, ?, ?, ?, ?)", id, createdAt, users, text, bytes)
        let total = try s.int64("UPDATE meta SET value = value + ? WHERE key = 'notification_log_bytes' RETURNING value", [bytes]) ?? 0
        guard total > budget else { return }
        var excess = total - budget / 10 * 9
        var through: Int64?
        try s.each("SELECT id, bytes FROM notification_batches WHERE id < ? ORDER BY id LIMIT 100000", [.int64(id)]) { r in
            guard excess > 0 else { return }
            through = r.int64(0)
            excess -= r.int64(1) ?? 0
        }
        if let through { try drop(through: through, s) }
    }

    /// Drops every batch up to `batch`: their bytes leave the total, and positions up to its end are expired.
    static func drop(through batch: Int64, _ s: any SQLSession) throws {
        let bytes = try s.int64("SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM notification_batches WHERE id <= ?", [batch]) ?? 0
        try s.execute("DELETE FROM notification_batches WHERE id <= ?", batch)
        try s.execute("UPDATE meta SET value = value - ? WHERE key = 'notification_log_bytes'", bytes)
        try s.execute("""
            INSERT INTO meta(key, value) VALUES ('notifications_expired_through', ?)
            ON CONFLICT(key) DO UPDATE SET value = \(s.dialect.greatest("meta.value", "excluded.value"))
            """, NotificationBatch.end(of: batch))
    }

    /// Drops the batches written before `cutoff` (milliseconds).
    static func expire(before cutoff: Int64, _ s: any SQLSession) throws {
        if let batch = try s.int64("SELECT MAX(id) FROM notification_batches WHERE created_at < ?", [cutoff]) { try drop(through: batch, s) }
    }

    /// The log's size in bytes, as counted.
    static func bytes(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT value FROM meta WHERE key = 'notification_log_bytes'") ?? 0
    }
}
