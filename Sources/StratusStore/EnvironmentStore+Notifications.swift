import Foundation
import GRDB
import StratusModel

/// The notification log (an outbox per user) and the web courier's tokens.
extension EnvironmentStore {
    public static let defaultNotificationRetention: Int64 = 7 * 24 * 3600 * 1000

    /// The outbox for a write, or nil when no subscription exists (then a write does no notification work at all).
    func outbox(_ db: Database) throws -> NotificationOutbox? {
        let index: SubscriptionIndex
        if let cached = subscriptionIndex.withLock({ $0 }) { index = cached } else {
            let decoder = JSONDecoder()
            let entries = try Row.fetchAll(db, sql: "SELECT scope, owner, spec FROM subscriptions WHERE spec IS NOT NULL").compactMap { row -> SubscriptionIndex.Entry? in
                guard let scope = DatabaseScope(rawValue: row[0]), let spec: String = row[2],
                      let s = try? decoder.decode(Subscription.self, from: Data(spec.utf8)) else { return nil }
                return SubscriptionIndex.Entry(owner: row[1], scope: scope, subscription: s)
            }
            index = SubscriptionIndex(entries)
            subscriptionIndex.withLock { $0 = index }
        }
        let hooks = try liveWebhooks(db)
        return index.isEmpty && hooks.isEmpty ? nil : NotificationOutbox(index: index, webhooks: hooks, container: container, environment: environment, bell: bell)
    }

    /// Forgets the grouped subscriptions; the next write reads them again.
    func subscriptionsChanged() { subscriptionIndex.withLock { $0 = nil } }

    /// Drops notifications past the retention, at most once a minute, inside a write.
    func dropExpiredNotifications(_ db: Database) throws {
        let now = Clock.nowMillis()
        guard lastExpiry.withLock({ last in
            guard now - last > min(60_000, notificationRetention) else { return false }
            last = now
            return true
        }) else { return }
        if let through = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM notifications WHERE created_at < ?", arguments: [now - notificationRetention]) {
            try db.execute(sql: "DELETE FROM notifications WHERE id <= ?", arguments: [through])
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('notifications_expired_through', ?)", arguments: [through])
        }
    }

    /// A user's notifications after `afterID` (0: from the oldest kept), oldest first. A position older than
    /// the retention — the notifications after it are gone — is CloudKit's expired-token answer.
    /// With `skippingExpired` (the web courier, whose token must not stay stuck), a position past the retention
    /// reads on from the oldest notification kept instead.
    public func notifications(for user: String, after afterID: Int64, limit: Int = 200, skippingExpired: Bool = false) throws(StratusError) -> [StoredNotification] {
        try read { db, _ in
            let expiredThrough = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'notifications_expired_through'") ?? 0
            var afterID = afterID
            if afterID < expiredThrough && skippingExpired { afterID = expiredThrough }
            if afterID < expiredThrough {
                throw StratusError(.changeTokenExpired, "notifications after this position are older than the server keeps (\(notificationRetention / 86_400_000) days): start from now")
            }
            return try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, nid, subscription_id, scope, record_name, reason, created_at, payload FROM notifications
                WHERE user = ? AND id > ? ORDER BY id LIMIT ?
                """), arguments: [user, afterID, limit]).map {
                StoredNotification(id: $0[0], notificationID: $0[1], subscriptionID: $0[2], scope: DatabaseScope(rawValue: $0[3]) ?? .private,
                                   recordName: $0[4], reason: $0[5], createdAt: $0[6], payload: $0[7])
            }
        }
    }

    /// The newest notification id (0 when none): where a new courier token starts, so it hears what comes next.
    public func lastNotificationID() throws(StratusError) -> Int64 {
        try read { db, _ in try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM notifications") ?? 0 }
    }

    // MARK: web courier tokens

    public func createCourierToken(_ token: String, user: String) throws(StratusError) {
        let start = try lastNotificationID()
        try write { db, _ in
            try db.execute(sql: "INSERT OR REPLACE INTO courier_tokens(token, user, created_at, delivered_through) VALUES (?, ?, ?, ?)",
                           arguments: [token, user, Clock.nowMillis(), start])
        }
    }

    /// The token's user and how far it has been answered; nil for an unknown token.
    public func courierToken(_ token: String) throws(StratusError) -> (user: String, deliveredThrough: Int64)? {
        let row: (String, Int64)? = try read { db, _ in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT user, delivered_through FROM courier_tokens WHERE token = ?"), arguments: [token]).map { ($0[0], $0[1]) }
        }
        guard let row else { return nil }
        return (row.0, max(row.1, courierProgress.withLock { $0.answered[token] ?? 0 }))
    }

    /// Marks everything up to `id` answered for the token (never moving back). The position is kept in memory and
    /// saved at most once a second for every token together, not with a synced commit per answer: a crash forgets
    /// at most the last second's answers, which are then sent again (delivery is at least once; `nid` dedups).
    public func courierDelivered(_ token: String, through id: Int64) throws(StratusError) {
        let now = ContinuousClock.now
        let due: [String: Int64]? = courierProgress.withLock { p in
            p.answered[token] = max(p.answered[token] ?? 0, id)
            p.dirty.insert(token)
            guard now - p.savedAt >= .seconds(1) else { return nil }
            p.savedAt = now
            defer { p.dirty.removeAll() }
            return Dictionary(uniqueKeysWithValues: p.dirty.map { ($0, p.answered[$0]!) })
        }
        guard let due else { return }
        try write { db, _ in
            for (t, through) in due {
                try db.cachedStatement(sql: "UPDATE courier_tokens SET delivered_through = max(delivered_through, ?) WHERE token = ?").execute(arguments: [through, t])
            }
        }
    }

    /// Saves every courier position still only in memory (at a clean stop).
    public func saveCourierProgress() throws(StratusError) {
        let due = courierProgress.withLock { p in
            defer { p.dirty.removeAll() }
            return p.dirty.map { ($0, p.answered[$0]!) }
        }
        guard !due.isEmpty else { return }
        try write { db, _ in
            for (t, through) in due {
                try db.execute(sql: "UPDATE courier_tokens SET delivered_through = max(delivered_through, ?) WHERE token = ?", arguments: [through, t])
            }
        }
    }
}

extension EnvironmentStore {
    /// Where a user's notification sits in the log, by its `nid` (SSE's `Last-Event-ID`). An unknown id is one
    /// dropped by the retention, or never the user's: CloudKit's expired-token answer, so the client starts afresh.
    public func notificationPosition(nid: String, user: String) throws(StratusError) -> Int64 {
        let position: Int64? = try read { db, _ in
            try Int64.fetchOne(db, sql: "SELECT id FROM notifications WHERE nid = ? AND user = ?", arguments: [nid, user])
        }
        guard let position else {
            throw StratusError(.changeTokenExpired, "no notification '\(nid.prefix(64))' is kept for this user (expired after \(notificationRetention / 86_400_000) days, or never yours): reconnect without Last-Event-ID")
        }
        return position
    }
}
