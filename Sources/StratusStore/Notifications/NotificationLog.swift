import Foundation
import StratusModel

/// The notification log (`notification_log`): one row per write transaction and recipient, holding every
/// notification that transaction fired for that user (see `NotificationBatch` for the text), keyed by
/// `(user, batch)`. A listener reads on from its position through its own rows only.
///
/// Each recipient is charged what their rows take (`notification_recipients.bytes`), and the log is held to two
/// budgets, so that one user's volume drops their own backlog and never another's:
/// - a recipient past their own budget (`NotificationPolicy.recipientBudgetBytes`) loses their oldest rows;
/// - a log past its whole budget (`NotificationPolicy.logBudgetBytes`) drops the oldest rows of its heaviest
///   recipient first, then of the next heaviest, and so on.
/// A recipient whose rows were dropped has them marked expired (`expired_through`): a listener behind that is told
/// to start afresh (CHANGE_TOKEN_EXPIRED). The retention drops rows by age for everyone (`notifications_expired_through`).
enum NotificationLog {
    /// One recipient's notifications of one transaction.
    struct Row {
        var user, text: String
        var count: Int
    }

    /// What a row is charged beyond its text: its key and counters.
    static let rowOverhead = 32

    /// Appends a transaction's rows and enforces both budgets; returns how many notifications were dropped for them.
    static func append(batch: Int64, createdAt: Int64, rows: [Row], policy: NotificationPolicy, _ s: any SQLSession) throws -> Int {
        var evicted = 0
        for r in rows where r.count > 0 {
            let bytes = Int64(r.user.utf8.count + r.text.utf8.count + rowOverhead)
            try s.execute(#"INSERT INTO notification_log("user", batch, created_at, entries, notifications, bytes) VALUES (?, ?, ?, ?, ?, ?)"#,
                          r.user, batch, createdAt, r.text, r.count, bytes)
            let mine = try s.int64("""
                INSERT INTO notification_recipients("user", bytes, expired_through) VALUES (?, ?, 0)
                ON CONFLICT("user") DO UPDATE SET bytes = notification_recipients.bytes + excluded.bytes RETURNING bytes
                """, [r.user, bytes]) ?? bytes
            try s.execute("UPDATE meta SET value = value + ? WHERE key = 'notification_log_bytes'", bytes)
            let own = policy.recipientBudgetBytes
            if mine > own { evicted += try evict(r.user, atLeast: mine - own / 10 * 9, before: batch, s) }
        }
        try s.execute("""
            INSERT INTO meta(key, value) VALUES ('notification_last_batch', ?)
            ON CONFLICT(key) DO UPDATE SET value = \(s.dialect.greatest("meta.value", "excluded.value"))
            """, batch)
        // The whole log past its budget: the heaviest recipient's oldest rows go first, down to the next heaviest.
        var total = try bytes(s)
        var rounds = 0
        while total > policy.logBudgetBytes, rounds < 1000 {
            rounds += 1
            let top = try s.all(#"SELECT "user", bytes FROM notification_recipients WHERE bytes > 0 ORDER BY bytes DESC LIMIT 2"#, []) {
                ($0.string(0) ?? "", $0.int64(1) ?? 0)
            }
            guard let (heaviest, theirs) = top.first else { break }
            let excess = total - policy.logBudgetBytes / 10 * 9
            let toNext = theirs - (top.count > 1 ? top[1].1 : 0)
            let dropped = try evict(heaviest, atLeast: max(1, min(excess, toNext)), before: batch + 1, s)
            evicted += dropped
            let after = try bytes(s)
            if after == total { break }
            total = after
        }
        return evicted
    }

    /// Drops `user`'s oldest rows before `batch`, at least `bytes` of them (or all there are); returns how many
    /// notifications they held.
    static func evict(_ user: String, atLeast bytes: Int64, before batch: Int64, _ s: any SQLSession) throws -> Int {
        var through: Int64?
        var freed: Int64 = 0
        var notifications = 0
        try s.each(#"SELECT batch, bytes, notifications FROM notification_log WHERE "user" = ? AND batch < ? ORDER BY batch LIMIT 100000"#,
                   [.text(user), .int64(batch)]) { r in
            guard freed < bytes else { return }
            through = r.int64(0)
            freed += r.int64(1) ?? 0
            notifications += Int(r.int64(2) ?? 0)
        }
        guard let through else { return 0 }
        try s.execute(#"DELETE FROM notification_log WHERE "user" = ? AND batch <= ?"#, user, through)
        try s.execute("""
            UPDATE notification_recipients SET bytes = \(s.dialect.greatest("bytes - ?", "0")),
                expired_through = \(s.dialect.greatest("expired_through", "?")) WHERE "user" = ?
            """, freed, NotificationBatch.end(of: through), user)
        try s.execute("UPDATE meta SET value = value - ? WHERE key = 'notification_log_bytes'", freed)
        return notifications
    }

    /// Drops every row up to `batch`, for everyone: their bytes leave the totals, and positions up to its end are expired.
    static func drop(through batch: Int64, _ s: any SQLSession) throws {
        let freed = try s.all(#"SELECT "user", CAST(SUM(bytes) AS BIGINT) FROM notification_log WHERE batch <= ? GROUP BY "user""#, [batch]) {
            ($0.string(0) ?? "", $0.int64(1) ?? 0)
        }
        try s.execute("DELETE FROM notification_log WHERE batch <= ?", batch)
        var total: Int64 = 0
        for (user, bytes) in freed {
            total += bytes
            try s.execute(#"UPDATE notification_recipients SET bytes = \#(s.dialect.greatest("bytes - ?", "0")) WHERE "user" = ?"#, bytes, user)
        }
        try s.execute("UPDATE meta SET value = value - ? WHERE key = 'notification_log_bytes'", total)
        try s.execute("""
            INSERT INTO meta(key, value) VALUES ('notifications_expired_through', ?)
            ON CONFLICT(key) DO UPDATE SET value = \(s.dialect.greatest("meta.value", "excluded.value"))
            """, NotificationBatch.end(of: batch))
    }

    /// Drops the rows written before `cutoff` (milliseconds).
    static func expire(before cutoff: Int64, _ s: any SQLSession) throws {
        if let batch = try s.int64("SELECT MAX(batch) FROM notification_log WHERE created_at < ?", [cutoff]) { try drop(through: batch, s) }
    }

    /// The log's size in bytes, as counted.
    static func bytes(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT value FROM meta WHERE key = 'notification_log_bytes'") ?? 0
    }

    /// Locks the log's batch counter for the rest of the transaction (see `NotificationOutbox.nextBatch`).
    static func lockBatches(_ s: any SQLSession) throws {
        _ = try s.int64("""
            INSERT INTO meta(key, value) VALUES ('notification_last_batch', 0)
            ON CONFLICT(key) DO UPDATE SET value = meta.value RETURNING value
            """, [])
    }

    /// The newest batch ever appended (0: none), which never goes back when rows are dropped.
    static func lastBatch(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT " + s.dialect.greatest("COALESCE((SELECT value FROM meta WHERE key = 'notification_last_batch'), 0)",
            "COALESCE((SELECT CAST(value AS BIGINT) FROM meta WHERE key = 'notifications_expired_through'), 0) >> \(NotificationBatch.indexBits)")) ?? 0
    }

    /// Where `user`'s log starts: positions before it were dropped (by age for everyone, or from this user's backlog).
    static func expiredThrough(_ user: String, _ s: any SQLSession) throws -> Int64 {
        let everyone = try s.int64("SELECT value FROM meta WHERE key = 'notifications_expired_through'") ?? 0
        let theirs = try s.int64(#"SELECT expired_through FROM notification_recipients WHERE "user" = ?"#, [user]) ?? 0
        return max(everyone, theirs)
    }
}
