import Foundation
import StratusModel

/// The notification log (`notification_log`): one row per write transaction and recipient, holding every
/// notification that transaction fired for that user (see `NotificationBatch` for the text), keyed by
/// `(user, batch)`. A listener reads on from its position through its own rows only.
///
/// **Each recipient has their own order.** A row's batch number comes from its recipient's counter
/// (`notification_recipients.last_batch`), drawn under that row's lock and held to the commit: one recipient's
/// rows become visible in the order of their numbers, while writes that notify different users do not wait for
/// one another. A write locks its recipients in the order of their names, so two writes never wait for each other
/// in a circle (docs/change-ordering.md).
///
/// Each recipient is charged what their rows take (`notification_recipients.bytes`), and the log is held to two
/// budgets, so that one user's volume drops their own backlog and never another's:
/// - a recipient past their own budget (`NotificationPolicy.recipientBudgetBytes`) loses their oldest rows, in the
///   write that took them past it;
/// - a log past its whole budget (`NotificationPolicy.logBudgetBytes`) drops the oldest rows of its heaviest
///   recipient first, then of the next heaviest, and so on — after the write, in transactions of its own
///   (`NotificationStore.tendLog`), since it takes other recipients' locks.
/// A recipient whose rows were dropped, by a budget or by age, has them marked expired (`expired_through`): a
/// listener behind that is told to start afresh (CHANGE_TOKEN_EXPIRED).
enum NotificationLog {
    /// The columns of `notification_log`.
    enum Column: String, TableColumn {
        case user, batch, entries, notifications, bytes, createdAt = "created_at"
    }

    /// The columns of `notification_recipients`.
    enum RecipientColumn: String, TableColumn {
        case user, bytes, lastBatch = "last_batch", expiredThrough = "expired_through"
    }

    /// One recipient's notifications of one transaction.
    struct Row {
        var user, text: String
        var count: Int
    }

    /// What a row is charged beyond its text: its key and counters.
    static let rowOverhead = 32

    /// What `append` did: each row's batch (by recipient), the bytes it added and the notifications it dropped.
    struct Appended {
        var batches: [String: Int64] = [:]
        var bytes: Int64 = 0
        var evicted = 0
    }

    /// Appends a transaction's rows, each under the next number of its recipient, and keeps each recipient to
    /// their own budget.
    /// The newest rows of every recipient (across users, the newest are the last written).
    static func newest(limit: Int, _ s: any SQLSession) throws -> [(batch: Int64, createdAt: Int64, entries: String,
                                                                    user: String)] {
        let columns = Selection<Column>([.batch, .createdAt, .entries, .user])
        return try s.all("SELECT \(columns.sql) FROM notification_log ORDER BY created_at DESC, batch DESC LIMIT ?",
                         [limit]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.batch) ?? 0, row.int64(.createdAt) ?? 0, row.string(.entries) ?? "",
                    row.string(.user) ?? "")
        }
    }

    /// What appending a recipient's row answers: their new number and what they are charged now.
    private static let appended = Selection<RecipientColumn>([.lastBatch, .bytes])

    static func append(createdAt: Int64, rows: [Row], policy: NotificationPolicy,
                       _ s: any SQLSession) throws -> Appended {
        var done = Appended()
        // In the order of the recipients' names: the locks of two writes never cross (see above).
        for r in rows.sorted(by: { $0.user < $1.user }) where r.count > 0 {
            let bytes = Int64(r.user.utf8.count + r.text.utf8.count + rowOverhead)
            // After the recipient's last number, and after the one order's (a recipient restored from a backup
            // made before each had their own carries none).
            let legacy = "(" + legacyLastBatch(s.dialect) + ")"
            guard let (batch, mine) = try s.one("""
                INSERT INTO notification_recipients("user", bytes, expired_through, last_batch) VALUES (?, ?, 0, \(legacy) + 1)
                ON CONFLICT("user") DO UPDATE SET last_batch = \(s.dialect.greatest("notification_recipients.last_batch", legacy)) + 1,
                    bytes = notification_recipients.bytes + excluded.bytes
                RETURNING \(appended.sql)
                """, [r.user, bytes], { row in
                    let row = NamedRow(row, appended)
                    return (row.int64(.lastBatch) ?? 0, row.int64(.bytes) ?? bytes)
                }) else { continue }
            try s.execute(#"INSERT INTO notification_log("user", batch, created_at, entries, notifications, bytes) VALUES (?, ?, ?, ?, ?, ?)"#,
                          r.user, batch, createdAt, r.text, r.count, bytes)
            done.batches[r.user] = batch
            done.bytes += bytes
            let own = policy.recipientBudgetBytes
            if mine > own { done.evicted += try evict(r.user, atLeast: mine - own / 10 * 9, before: batch, s) }
        }
        return done
    }

    /// Holds the whole log to its budget: the heaviest recipient's oldest rows go first, down to the next heaviest.
    /// Each recipient's rows go in a transaction of their own (`write`), which holds that recipient's lock only.
    /// Returns the notifications dropped and the log's size after.
    static func keepToBudget(_ policy: NotificationPolicy, write: ((any SQLSession) throws -> Int) throws -> Int,
                             measure: () throws -> Int64) throws -> (evicted: Int, bytes: Int64) {
        var total = try measure()
        var evicted = 0
        var rounds = 0
        while total > policy.logBudgetBytes, rounds < 1000 {
            rounds += 1
            let excess = total - policy.logBudgetBytes / 10 * 9
            let dropped = try write { s in
                let columns = Selection<RecipientColumn>([.user, .bytes])
                let top = try s.all("SELECT \(columns.sql) FROM notification_recipients WHERE bytes > 0 ORDER BY bytes DESC LIMIT 2", []) { r in
                    let row = NamedRow(r, columns)
                    return (row.string(.user) ?? "", row.int64(.bytes) ?? 0)
                }
                guard let (heaviest, theirs) = top.first else { return -1 }
                let toNext = theirs - (top.count > 1 ? top[1].1 : 0)
                return try evict(heaviest, atLeast: max(1, min(excess, toNext)), before: Int64.max, s)
            }
            if dropped < 0 { break }
            evicted += dropped
            let after = try measure()
            if after == total { break }
            total = after
        }
        return (evicted, total)
    }

    /// Drops `user`'s oldest rows before `batch`, at least `bytes` of them (or all there are); returns how many
    /// notifications they held. The recipient's lock is taken first, as every writer of theirs takes it.
    static func evict(_ user: String, atLeast bytes: Int64, before batch: Int64, _ s: any SQLSession) throws -> Int {
        try s.execute(#"UPDATE notification_recipients SET bytes = bytes WHERE "user" = ?"#, user)
        var through: Int64?
        var freed: Int64 = 0
        var notifications = 0
        let columns = Selection<Column>([.batch, .bytes, .notifications])
        try s.each(#"SELECT \#(columns.sql) FROM notification_log WHERE "user" = ? AND batch < ? ORDER BY batch LIMIT 100000"#,
                   [.text(user), .int64(batch)]) { r in
            guard freed < bytes else { return }
            let row = NamedRow(r, columns)
            through = row.int64(.batch)
            freed += row.int64(.bytes) ?? 0
            notifications += Int(row.int64(.notifications) ?? 0)
        }
        guard let through else { return 0 }
        try dropRows(of: user, through: through, freed: freed, s)
        return notifications
    }

    /// Drops each recipient's rows written before `cutoff` (milliseconds), recipients in the order of their names.
    static func expire(before cutoff: Int64, _ s: any SQLSession) throws {
        let columns = Selection<Column>([.user, .batch])
        let old = try s.all(#"SELECT "user", MAX(batch) AS batch FROM notification_log WHERE created_at < ? GROUP BY "user""#, [cutoff]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.user) ?? "", row.int64(.batch) ?? 0)
        }
        for (user, through) in old.sorted(by: { $0.0 < $1.0 }) {
            try s.execute(#"UPDATE notification_recipients SET bytes = bytes WHERE "user" = ?"#, user)
            let freed = try s.int64(#"SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM notification_log WHERE "user" = ? AND batch <= ?"#, [user, through]) ?? 0
            try dropRows(of: user, through: through, freed: freed, s)
        }
    }

    /// Deletes `user`'s rows up to `through`, takes their bytes off the recipient's, and marks their positions expired.
    private static func dropRows(of user: String, through: Int64, freed: Int64, _ s: any SQLSession) throws {
        try s.execute(#"DELETE FROM notification_log WHERE "user" = ? AND batch <= ?"#, user, through)
        try s.execute("""
            UPDATE notification_recipients SET bytes = \(s.dialect.greatest("bytes - ?", "0")),
                expired_through = \(s.dialect.greatest("expired_through", "?")) WHERE "user" = ?
            """, freed, NotificationBatch.end(of: through), user)
    }

    /// The log's size in bytes: what its recipients are charged.
    static func bytes(_ s: any SQLSession) throws -> Int64 {
        try s.int64(#"SELECT CAST(COALESCE(SUM(bytes), 0) AS BIGINT) FROM notification_recipients"#) ?? 0
    }

    /// The newest batch of the one order the log had before each recipient had their own (frozen since): every
    /// recipient's numbers start after it, so a position handed out before still reads on correctly.
    static func legacyLastBatch(_ dialect: SQLDialect) -> String {
        "SELECT " + dialect.greatest("COALESCE(\(Meta.column(.notificationLastBatch)), 0)",
            "COALESCE(CAST(\(Meta.column(.notificationsExpiredThrough)) AS BIGINT), 0) >> \(NotificationBatch.indexBits)")
    }

    /// Up to `limit` of `user`'s rows, from batch `from` through `through`, in order.
    static func rows(of user: String, from: Int64, through: Int64, limit: Int,
                     _ s: any SQLSession) throws -> [(batch: Int64, createdAt: Int64, entries: String)] {
        let columns = Selection<Column>([.batch, .createdAt, .entries])
        return try s.all(#"SELECT \#(columns.sql) FROM notification_log WHERE "user" = ? AND batch >= ? AND batch <= ? ORDER BY batch LIMIT ?"#,
                         [user, from, through, limit]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.batch) ?? 0, row.int64(.createdAt) ?? 0, row.string(.entries) ?? "")
        }
    }

    /// How many notifications `user`'s row of `batch` holds; nil when there is no such row.
    static func count(of user: String, batch: Int64, _ s: any SQLSession) throws -> Int64? {
        try s.one(#"SELECT notifications FROM notification_log WHERE "user" = ? AND batch = ?"#, [user, batch]) {
            NamedRow($0, Selection<Column>([.notifications])).int64(.notifications)
        }
    }

    /// `user`'s newest batch (`legacyLastBatch` when they have none): everything up to it has committed.
    static func lastBatch(of user: String, _ s: any SQLSession) throws -> Int64 {
        let mine = try s.int64(#"SELECT last_batch FROM notification_recipients WHERE "user" = ?"#, [user]) ?? 0
        return max(mine, try s.int64(legacyLastBatch(s.dialect)) ?? 0)
    }

    /// The newest batch of each of `users` (see `lastBatch(of:)`).
    static func lastBatches(of users: [String], _ s: any SQLSession) throws -> [String: Int64] {
        guard !users.isEmpty else { return [:] }
        let legacy = try s.int64(legacyLastBatch(s.dialect)) ?? 0
        var out = Dictionary(users.map { ($0, legacy) }, uniquingKeysWith: { a, _ in a })
        for chunk in stride(from: 0, to: users.count, by: 500).map({ Array(users[$0..<min($0 + 500, users.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let columns = Selection<RecipientColumn>([.user, .lastBatch])
            try s.each(#"SELECT \#(columns.sql) FROM notification_recipients WHERE "user" IN (\#(marks))"#,
                       chunk.map { .text($0) }) { r in
                let row = NamedRow(r, columns)
                if let user = row.string(.user), let last = row.int64(.lastBatch) { out[user] = max(last, legacy) }
            }
        }
        return out
    }

    /// Where `user`'s log starts: positions before it were dropped (by age or from this user's backlog; or, before
    /// each recipient had their own order, by age for everyone).
    static func expiredThrough(_ user: String, _ s: any SQLSession) throws -> Int64 {
        let everyone = try Meta.value(s, .notificationsExpiredThrough) ?? 0
        let theirs = try s.int64(#"SELECT expired_through FROM notification_recipients WHERE "user" = ?"#, [user]) ?? 0
        return max(everyone, theirs)
    }
}
