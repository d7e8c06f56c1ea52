import Foundation
import GRDB
import StratusModel

/// Subscriptions, each owned by the user who saved it in one database scope (a public-database subscription too
/// belongs to its user, who alone hears it), kept as the documents the API layer normalized plus their parsed form.
extension EnvironmentStore {
    public func subscriptions(in scope: DatabaseScope, owner: String) throws(StratusError) -> [(id: String, document: String)] {
        try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT subscription_id, document FROM subscriptions WHERE scope = ? AND owner = ? ORDER BY created_at, subscription_id",
                             arguments: [scope.rawValue, owner]).map { ($0[0], $0[1]) }
        }
    }

    /// Every subscription of the environment, of every user and database, newest first (for the console).
    public func allSubscriptions(limit: Int = 1000) throws(StratusError) -> [(scope: DatabaseScope, owner: String, id: String, document: String, createdAt: Int64)] {
        try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT scope, owner, subscription_id, document, created_at FROM subscriptions ORDER BY created_at DESC LIMIT ?",
                             arguments: [limit]).compactMap { r in
                DatabaseScope(rawValue: r[0]).map { ($0, r[1], r[2], r[3], r[4]) }
            }
        }
    }

    public func subscription(_ id: String, in scope: DatabaseScope, owner: String) throws(StratusError) -> String? {
        try read { db, _ in
            try String.fetchOne(db, sql: "SELECT document FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                                arguments: [scope.rawValue, owner, id])
        }
    }

    /// Creates (EXISTS if the ID is taken) or, with `replace`, updates (NOT_FOUND if missing) a subscription.
    public func saveSubscription(_ id: String, document: String, spec: Subscription? = nil, in scope: DatabaseScope, owner: String, replace: Bool) throws(StratusError) {
        let specJSON = spec.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        guard !id.isEmpty, id.utf8.count <= 255 else { throw .badRequest("subscriptionID must be 1 to 255 bytes") }
        guard document.utf8.count <= 64 * 1024 else { throw .badRequest("a subscription is at most 64 KB") }
        try write { db, _ in
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                                           arguments: [scope.rawValue, owner, id]) ?? false
            if replace && !exists { throw StratusError(.notFound, "subscription '\(id)' does not exist") }
            if !replace && exists { throw StratusError(.exists, "subscription '\(id)' already exists") }
            try db.execute(sql: "REPLACE INTO subscriptions(scope, owner, subscription_id, document, spec, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [scope.rawValue, owner, id, document, specJSON, Clock.nowMillis()])
        }
        subscriptionsChanged()
    }

    public func deleteSubscription(_ id: String, in scope: DatabaseScope, owner: String) throws(StratusError) {
        try write { db, _ in
            try db.execute(sql: "DELETE FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                           arguments: [scope.rawValue, owner, id])
            guard db.changesCount == 1 else { throw StratusError(.notFound, "subscription '\(id)' does not exist") }
        }
        subscriptionsChanged()
    }
}
