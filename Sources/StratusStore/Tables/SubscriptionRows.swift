import Foundation
import StratusModel

/// `subscriptions`: each subscription's row, keyed by database scope, owner and id, as its one wire `document`
/// (`Subscription.normalized`). The environment's count is kept beside the rows (`Meta.Key.subscriptionCount`), so
/// the caps of `NotificationPolicy` are checked without counting a million rows. Every statement on it is here.
enum SubscriptionRows {
    enum Column: String, TableColumn {
        case scope, owner, document, subscriptionID = "subscription_id", createdAt = "created_at"
    }

    private static let key = "scope = ? AND owner = ? AND subscription_id = ?"

    /// Refuses a new subscription past the owner's or the environment's cap (LIMIT_EXCEEDED).
    static func checkCaps(owner: String, policy: NotificationPolicy, _ s: any SQLSession) throws {
        let mine = try s.int64("SELECT COUNT(*) FROM subscriptions WHERE owner = ?", [owner]) ?? 0
        guard mine < policy.subscriptionsPerUser else {
            throw StratusError(.limitExceeded,
                               "a user holds at most \(policy.subscriptionsPerUser) subscriptions in a container environment: delete some first")
        }
        let all = try Meta.value(s, .subscriptionCount) ?? 0
        guard all < policy.subscriptionsPerEnvironment else {
            throw StratusError(.limitExceeded,
                               "this container environment holds its most subscriptions (\(policy.subscriptionsPerEnvironment)): try again later")
        }
    }

    /// Inserts a subscription that does not exist yet, counting it.
    static func insert(_ scope: DatabaseScope, owner: String, id: String, document: String,
                       _ s: any SQLSession) throws {
        try s.execute("INSERT INTO subscriptions(scope, owner, subscription_id, document, created_at) VALUES (?, ?, ?, ?, ?)",
                      scope.rawValue, owner, id, document, WallClock.nowMillis())
        try Meta.add(s, .subscriptionCount, 1)
    }

    /// Replaces a subscription that exists.
    static func replace(_ scope: DatabaseScope, owner: String, id: String, document: String,
                        _ s: any SQLSession) throws {
        try s.execute("UPDATE subscriptions SET document = ?, created_at = ? WHERE \(key)", document,
                      WallClock.nowMillis(), scope.rawValue, owner, id)
    }

    /// What a subscription is charged to its owner (`UserUsage`); nil when it does not exist.
    static func charge(_ scope: DatabaseScope, owner: String, id: String, _ s: any SQLSession) throws -> Int64? {
        try document(scope, owner: owner, id: id, s).map { UserUsage.charge(subscriptionDocument: $0) }
    }

    /// Deletes one subscription, uncounting it; what it was charged to its owner, nil when it did not exist.
    @discardableResult
    static func delete(_ scope: DatabaseScope, owner: String, id: String, _ s: any SQLSession) throws -> Int64? {
        guard let charge = try charge(scope, owner: owner, id: id, s) else { return nil }
        let n = try s.execute("DELETE FROM subscriptions WHERE \(key)", scope.rawValue, owner, id)
        if n > 0 { try Meta.add(s, .subscriptionCount, -Int64(n)) }
        return n > 0 ? charge : nil
    }

    /// An owner's subscriptions in one scope, oldest first: id and document.
    static func documents(_ scope: DatabaseScope, owner: String, _ s: any SQLSession) throws -> [(id: String,
            document: String)] {
        let columns = Selection<Column>([.subscriptionID, .document])
        return try s.all("SELECT \(columns.sql) FROM subscriptions WHERE scope = ? AND owner = ? ORDER BY created_at, subscription_id", [scope.rawValue, owner]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.subscriptionID) ?? "", row.string(.document) ?? "")
        }
    }

    /// One subscription's document.
    static func document(_ scope: DatabaseScope, owner: String, id: String, _ s: any SQLSession) throws -> String? {
        let columns = Selection<Column>([.document])
        return try s.one("SELECT \(columns.sql) FROM subscriptions WHERE \(key)", [scope.rawValue, owner,
                id]) { NamedRow($0, columns).string(.document) }
    }

    /// The newest subscriptions of every user and database, at most `limit`.
    static func newest(limit: Int, _ s: any SQLSession) throws -> [(scope: DatabaseScope, owner: String, id: String,
                                                                    document: String, createdAt: Int64)] {
        let columns = Selection<Column>([.scope, .owner, .subscriptionID, .document, .createdAt])
        return try s.all("SELECT \(columns.sql) FROM subscriptions ORDER BY created_at DESC LIMIT ?", [limit]) { r in
            let row = NamedRow(r, columns)
            return DatabaseScope(rawValue: row.string(.scope) ?? "").map {
                ($0, row.string(.owner) ?? "", row.string(.subscriptionID) ?? "", row.string(.document) ?? "",
                 row.int64(.createdAt) ?? 0)
            }
        }
    }

    /// Every subscription with its owner and scope: what writes are matched against.
    static func everyDocument(_ s: any SQLSession) throws -> [(owner: String, scope: DatabaseScope, id: String,
                                                               document: String)] {
        let columns = Selection<Column>([.scope, .owner, .subscriptionID, .document])
        return try s.all("SELECT \(columns.sql) FROM subscriptions") { r in
            let row = NamedRow(r, columns)
            guard let scope = DatabaseScope(rawValue: row.string(.scope) ?? "") else { return nil }
            return (row.string(.owner) ?? "", scope, row.string(.subscriptionID) ?? "", row.string(.document) ?? "")
        }
    }

    /// Each subscription's owner and its charge (for counting every user's storage anew).
    static func eachCharge(_ s: any SQLSession, _ body: (String, Int64) -> Void) throws {
        let columns = Selection<Column>([.owner, .document])
        try s.each("SELECT \(columns.sql) FROM subscriptions", []) { r in
            let row = NamedRow(r, columns)
            body(row.string(.owner) ?? "", UserUsage.charge(subscriptionDocument: row.string(.document) ?? ""))
        }
    }
}
