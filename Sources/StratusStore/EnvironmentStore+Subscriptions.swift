import Foundation
import GRDB
import StratusModel

/// Subscriptions of one database, kept as documents the API layer validated and normalized.
extension EnvironmentStore {
    public func subscriptions(in database: DatabaseID) throws(StratusError) -> [(id: String, document: String)] {
        try read { db, _ in
            try Row.fetchAll(db, sql: "SELECT subscription_id, document FROM subscriptions WHERE scope = ? AND owner = ? ORDER BY created_at, subscription_id",
                             arguments: [database.scope.rawValue, database.ownerRecordName]).map { ($0[0], $0[1]) }
        }
    }

    public func subscription(_ id: String, in database: DatabaseID) throws(StratusError) -> String? {
        try read { db, _ in
            try String.fetchOne(db, sql: "SELECT document FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                                arguments: [database.scope.rawValue, database.ownerRecordName, id])
        }
    }

    /// Creates (EXISTS if the ID is taken) or, with `replace`, updates (NOT_FOUND if missing) a subscription.
    public func saveSubscription(_ id: String, document: String, in database: DatabaseID, replace: Bool) throws(StratusError) {
        guard !id.isEmpty, id.utf8.count <= 255 else { throw .badRequest("subscriptionID must be 1 to 255 bytes") }
        guard document.utf8.count <= 64 * 1024 else { throw .badRequest("a subscription is at most 64 KB") }
        try write { db, _ in
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                                           arguments: [database.scope.rawValue, database.ownerRecordName, id]) ?? false
            if replace && !exists { throw StratusError(.notFound, "subscription '\(id)' does not exist") }
            if !replace && exists { throw StratusError(.exists, "subscription '\(id)' already exists") }
            try db.execute(sql: "REPLACE INTO subscriptions(scope, owner, subscription_id, document, created_at) VALUES (?, ?, ?, ?, ?)",
                           arguments: [database.scope.rawValue, database.ownerRecordName, id, document, Clock.nowMillis()])
        }
    }

    public func deleteSubscription(_ id: String, in database: DatabaseID) throws(StratusError) {
        try write { db, _ in
            try db.execute(sql: "DELETE FROM subscriptions WHERE scope = ? AND owner = ? AND subscription_id = ?",
                           arguments: [database.scope.rawValue, database.ownerRecordName, id])
            guard db.changesCount == 1 else { throw StratusError(.notFound, "subscription '\(id)' does not exist") }
        }
    }
}
