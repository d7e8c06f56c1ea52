import Foundation
import StratusJSON

extension CKDatabase {
    /// Mirrors `CKDatabase.save(_:)` for a subscription.
    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        try await saveOne(subscription, subscription.subscriptionID, "the subscription save") { try await modifySubscriptions(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.subscription(for:)`.
    public func subscription(for id: CKSubscription.ID) async throws -> CKSubscription {
        let j = try await call("subscriptions/lookup", ["subscriptions": [["subscriptionID": JSON(id)]]])
        guard let item = (j["subscriptions"]?.objects)?.first else { throw CKError.make(.unknownItem, "subscription \(id) not found") }
        if item["serverErrorCode"] != nil { throw CKError.from(server: item, scope: databaseScope, zoneID: .default) }
        guard let s = CKSubscription.from(wire: item, scope: databaseScope) else { throw CKError.make(.serverResponseLost, "unreadable subscription") }
        return s
    }

    /// Mirrors `CKDatabase.subscriptions(for:)`: each subscription by its ID (`subscriptions/lookup`, at most 400
    /// per request), or why it could not be read.
    public func subscriptions(for ids: [CKSubscription.ID]) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] {
        var out: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        for start in stride(from: 0, to: ids.count, by: 400) {
            let batch = Array(ids[start..<min(start + 400, ids.count)])
            let j = try await call("subscriptions/lookup", ["subscriptions": .array(batch.map { ["subscriptionID": JSON($0)] })])
            for (id, item) in zip(batch, j["subscriptions"]?.objects ?? []) {
                if item["serverErrorCode"] != nil {
                    out[id] = .failure(CKError.from(server: item, scope: databaseScope, zoneID: .default))
                } else if let s = CKSubscription.from(wire: item, scope: databaseScope) {
                    out[id] = .success(s)
                } else {
                    out[id] = .failure(CKError.make(.serverResponseLost, "unreadable subscription"))
                }
            }
            for id in batch where out[id] == nil { out[id] = .failure(CKError.make(.unknownItem, "subscription \(id) not found")) }
        }
        return out
    }

    /// Mirrors `CKDatabase.allSubscriptions()` (`subscriptions/list`).
    public func allSubscriptions() async throws -> [CKSubscription] {
        let j = try await call("subscriptions/list", nil)
        return (j["subscriptions"]?.objects ?? []).compactMap { CKSubscription.from(wire: $0, scope: databaseScope) }
    }

    /// Mirrors `CKDatabase.deleteSubscription(withID:)`.
    @discardableResult
    public func deleteSubscription(withID id: CKSubscription.ID) async throws -> CKSubscription.ID {
        try await deleteOne(id, "the subscription delete") { try await modifySubscriptions(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.modifySubscriptions(saving:deleting:)` (`subscriptions/modify`). A saved subscription
    /// is made, or replaces the one with its ID, on the server in one step (`create`), so that devices saving the
    /// same subscription at once all succeed.
    public func modifySubscriptions(saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID]) async throws
        -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]) {
        var ops: [WireObject] = []
        for s in subscriptionsToSave { ops.append(["operationType": "create", "subscription": try JSON(s.wire())]) }
        for id in subscriptionIDsToDelete { ops.append(["operationType": "delete", "subscription": ["subscriptionID": JSON(id)]]) }
        let j = try await call("subscriptions/modify", ["operations": JSON(ops)])
        let items = j["subscriptions"]?.objects ?? []
        guard items.count == ops.count else { throw CKError.make(.serverResponseLost, "subscriptions/modify answered \(items.count) of \(ops.count)") }
        return modifyResults(items, saving: subscriptionsToSave, id: \.subscriptionID, deleting: subscriptionIDsToDelete, zoneOf: { _ in .default }) { item, s in
            CKSubscription.from(wire: item, scope: databaseScope) ?? s
        }
    }
}
