/// `meta`: an environment's counters and flags, one integer per key. Every statement on it is here, and every key
/// it holds is named below.
enum Meta {
    enum Key: String {
        /// The schema's version: it moves with every schema change, and cached catalogs are checked against it.
        case schemaGeneration = "schema_generation"
        /// The first sequence number no database's counter has handed out (before each database had its own).
        case nextSeq = "next_seq"
        /// Set once every user's storage has been counted (`UserUsage.backfillIfNeeded`).
        case userUsageCounted = "user_usage_counted"
        /// The environment's subscriptions, against its cap.
        case subscriptionCount = "subscription_count"
        /// The notification log's bytes and last batch, as the log's conversion found them.
        case notificationLogBytes = "notification_log_bytes"
        case notificationLastBatch = "notification_last_batch"
        /// The notifications every recipient's expiry has passed.
        case notificationsExpiredThrough = "notifications_expired_through"
    }

    /// A statement's column that reads a key's value in the statement that needs it (a round trip fewer).
    static func column(_ key: Key) -> String { "(SELECT value FROM meta WHERE key = '\(key.rawValue)')" }

    static func value(_ s: any SQLSession, _ key: Key) throws -> Int64? { try value(s, key.rawValue) }

    /// Sets a key's value, whether it was there or not.
    static func set(_ s: any SQLSession, _ key: Key, _ value: Int64) throws { try set(s, key.rawValue, value) }

    /// Adds `delta` to a key that is there; returns the new value (nil: no such key).
    @discardableResult
    static func add(_ s: any SQLSession, _ key: Key, _ delta: Int64) throws -> Int64? {
        try s.int64("UPDATE meta SET value = value + ? WHERE key = ? RETURNING value", [delta, key.rawValue])
    }

    /// Per-type flags are keys of their own, made of a prefix and the type's id (see `StoredRecords.deferIndexes`).
    static func value(_ s: any SQLSession, _ key: String) throws -> Int64? {
        try s.int64("SELECT value FROM meta WHERE key = ?", [key])
    }

    static func set(_ s: any SQLSession, _ key: String, _ value: Int64) throws {
        try s.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
    }

    static func remove(_ s: any SQLSession, _ key: String) throws {
        try s.execute("DELETE FROM meta WHERE key = ?", key)
    }

    /// The keys that start with `prefix`.
    static func keys(_ s: any SQLSession, prefix: String) throws -> [String] {
        try s.all("SELECT key FROM meta WHERE key LIKE ?", [prefix + "%"]) { r in NamedRow(r,
                Selection<Column>([.key])).string(.key) }
    }

    enum Column: String, TableColumn { case key, value }
}
