import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// The subscriptions resource: `subscriptions/list`, `lookup` and `modify`.
    static let subscriptionOperations = [
        Operation(.subscriptionsList) { try $0.subscriptionsList($1) },
        Operation(.subscriptionsLookup) { try $0.subscriptionsLookup($1) },
        Operation(.subscriptionsModify) { try $0.subscriptionsModify($1) },
    ]

    /// Subscriptions belong to a signed-in user, in every database: the one who saved it alone is notified.
    func subscriber(_ ctx: CloudKitRequest) throws -> String {
        try requireUser(ctx.auth, ctx.request, container: ctx.container, environment: ctx.environment)
    }

    func subscriptionsList(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let all = try env(ctx).subscriptions.all(in: ctx.database, owner: try subscriber(ctx))
        return jsonList("subscriptions", all) { s, w in w.value((try? JSON.parse(Data(s.document.utf8))) ?? .null) }
    }

    func subscriptionsLookup(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard let items = try ctx.body.array("subscriptions") else { throw StratusError.badRequest("subscriptions/lookup needs subscriptions: [{subscriptionID}]") }
        try RequestLimits.check(items.count, "subscriptions")
        let store = try env(ctx)
        var out: [Result<JSON, StratusError>] = []
        for item in items {
            let id = item["subscriptionID"]?.string ?? ""
            if let doc = try store.subscriptions.subscription(id, in: ctx.database,
                                                              owner: try subscriber(ctx)), let j = try? JSON.parse(Data(doc.utf8)) { out.append(.success(j)) } else {
                out.append(.failure(StratusError(.notFound, "subscription '\(id.prefix(100))' does not exist")))
            }
        }
        return jsonList("subscriptions", out.enumerated()) { item, w in
            let (i, r) = item
            switch r {
            case .success(let j): w.value(j)
            case .failure(let e):
                WireEncoding().error(e, &w) { $0.field("subscriptionID", items[i]["subscriptionID"]?.string ?? "") }
            }
        }
    }

    /// Query subscriptions carry a query and `firesOn`; zone subscriptions a zoneID; database subscriptions nothing
    /// more. `create` makes or replaces the subscription with its ID (CloudKit's save: every new device of a user
    /// saves the same database subscription, and none of them is refused); `update` replaces one that exists.
    /// Stored as sent, normalized (`Subscription.normalized`), and answered so.
    func subscriptionsModify(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard let ops = try ctx.body.array("operations") else { throw StratusError.badRequest("subscriptions/modify needs operations: [{operationType, subscription}]") }
        try RequestLimits.check(ops.count, "operations")
        let store = try env(ctx)
        var results: [(String, Result<JSON?, StratusError>)] = []
        for op in ops {
            let sub = op["subscription"]
            let id = sub?["subscriptionID"]?.string ?? ""
            do {
                let type = op["operationType"]?.string.flatMap(SubscriptionOperation.init)
                switch type {
                case .create?, .update?:
                    if ctx.environment == .production, let sub,
                       case .query(let t, let filters, _, _, let zone) = try Subscription(
                           wire: try Subscription.normalized(sub, id: id), id: id, database: ctx.database).kind {
                        // Production has no just-in-time schema: a subscription's query must be one the indexes can
                        // serve.
                        _ = try store.records.query(Query(recordType: t, filters: filters, sorts: [], zoneID: zone,
                                                          resultsLimit: 1), in: ctx.databaseID)
                    }
                    let doc = try store.subscriptions.saveSubscription(id, wire: sub, in: ctx.database,
                                                                       owner: try subscriber(ctx),
                                                                       as: type == .update ? .update : .createOrReplace)
                    results.append((id, .success(doc)))
                case .delete?:
                    try store.subscriptions.deleteSubscription(id, in: ctx.database, owner: try subscriber(ctx))
                    results.append((id, .success(nil)))
                case nil: throw StratusError.badRequest("subscription operationType must be create, update or delete")
                }
            } catch {
                results.append((id, .failure(StratusError.wrapping(error))))
            }
        }
        return jsonList("subscriptions", results) { item, w in
            let (id, r) = item
            switch r {
            case .success(let doc?): w.value(doc)
            case .success(nil): w.beginObject(); w.field("subscriptionID", id); w.field("deleted", true); w.endObject()
            case .failure(let e):
                WireEncoding().error(e, &w) { $0.field("subscriptionID", id) }
            }
        }
    }
}
