import Foundation
import StratusModel

/// The `subscriptions` table's writes, with the environment's count kept beside them (`meta.subscription_count`),
/// so the caps of `NotificationPolicy` are checked without counting a million rows.
enum SubscriptionRows {
    /// Refuses a new subscription past the owner's or the environment's cap (LIMIT_EXCEEDED).
    static func checkCaps(owner: String, policy: NotificationPolicy, _ s: any SQLSession) throws {
        let mine = try s.int64("SELECT COUNT(*) FROM subscriptions WHERE owner = ?", [owner]) ?? 0
        guard mine < policy.subscriptionsPerUser else {
            throw StratusError(.limitExceeded, "a user holds at most \(policy.subscriptionsPerUser) subscriptions in a container environment: delete some first")
        }
        let all = try Meta.value(s, .subscriptionCount) ?? 0
        guard all < policy.subscriptionsPerEnvironment else {
            throw StratusError(.limitExceeded, "this container environment holds its most subscriptions (\(policy.subscriptionsPerEnvironment)): try again later")
        }
    }

    /// Inserts a subscription that does not exist yet, counting it.
    static func insert(_ scope: DatabaseScope, owner: String, id: String, document: String, spec: String?, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO subscriptions(scope, owner, subscription_id, document, spec, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                      scope.rawValue, owner, id, document, spec, WallClock.nowMillis())
        try Meta.add(s, .subscriptionCount, 1)
    }

    /// Deletes one subscription, uncounting it; what it was charged to its owner (`UserUsage`), nil when it did not exist.
    @discardableResult
    static func delete(_ scope: DatabaseScope, owner: String, id: String, _ s: any SQLSession) throws -> Int64? {
        guard let charge = try s.one("SELECT document, spec FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?", [scope.rawValue, owner, id], {
            UserUsage.charge(subscriptionDocument: $0.string(0) ?? "", spec: $0.string(1))
        }) else { return nil }
        let n = try s.execute("DELETE FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?", scope.rawValue, owner, id)
        if n > 0 { try Meta.add(s, .subscriptionCount, -Int64(n)) }
        return n > 0 ? charge : nil
    }
}
