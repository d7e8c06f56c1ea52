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
    /// Stored as sent (normalized) for list and lookup, and parsed (`Subscription`) for matching writes.
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
                    let doc = try Self.normalizedSubscription(sub, id: id)
                    let spec = try Self.subscription(doc, id: id, database: ctx.database)
                    if ctx.environment == .production, case .query(let t, let filters, _, _, let zone) = spec.kind {
                        // Production has no just-in-time schema: a subscription's query must be one the indexes can
                        // serve.
                        _ = try store.records.query(Query(recordType: t, filters: filters, sorts: [], zoneID: zone,
                                                          resultsLimit: 1), in: ctx.databaseID)
                    }
                    try store.subscriptions.saveSubscription(id, document: doc.serialized, spec: spec, in: ctx.database,
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

    package static func normalizedSubscription(_ j: JSON?, id: String) throws -> JSON {
        guard var o = j?.object else { throw StratusError.badRequest("each operation needs a subscription object") }
        guard !id.isEmpty else { throw StratusError.badRequest("a subscription needs a subscriptionID") }
        switch o["subscriptionType"]?.string.flatMap(SubscriptionType.init) {
        case .query?:
            guard let q = o["query"] else { throw StratusError.badRequest("a query subscription needs a query") }
            _ = try WireDecoding.query(q, zone: nil, limit: 1, marker: nil, desiredKeys: nil)
            let fires = try WireDecoding.stringList(o["firesOn"], "firesOn") ?? []
            guard !fires.isEmpty, fires.allSatisfy({ ["create", "update", "delete"].contains($0) }) else {
                throw StratusError.badRequest("firesOn must list create, update and/or delete")
            }
            if o["zoneWide"] == nil { o["zoneWide"] = .bool(true) }
            if o["firesOnce"] == nil { o["firesOnce"] = .bool(false) }
        case .zone?:
            guard o["zoneID"] != nil else { throw StratusError.badRequest("a zone subscription needs a zoneID") }
            _ = try WireDecoding.zoneID(o["zoneID"])
            o["query"] = nil
            o["firesOn"] = nil
            o["firesOnce"] = nil
        case .database?:
            o["query"] = nil
            o["firesOn"] = nil
            o["firesOnce"] = nil
            o["zoneID"] = nil
        case nil:
            throw StratusError.badRequest("subscriptionType must be query, zone or database")
        }
        return .object(o)
    }

    /// The parsed subscription the store matches writes against. Zone and database subscriptions exist only in
    /// private and shared databases, and a zone subscription names a custom zone.
    package static func subscription(_ doc: JSON, id: String, database: DatabaseScope) throws -> Subscription {
        let info = doc["notificationInfo"] ?? .object([:])
        var notificationInfo = NotificationInfo(
            alertBody: try info.string("alertBody"), alertLocalizationKey: try info.string("alertLocalizationKey"),
            alertLocalizationArgs: try WireDecoding.stringList(info["alertLocalizationArgs"], "alertLocalizationArgs"),
            alertActionLocalizationKey: try info.string("alertActionLocalizationKey"), alertLaunchImage: try info.string("alertLaunchImage"),
            soundName: try info.string("soundName"), shouldBadge: try info.bool("shouldBadge") ?? false,
            shouldSendContentAvailable: try info.bool("shouldSendContentAvailable") ?? false,
            desiredKeys: try WireDecoding.stringList(info["desiredKeys"],
                                                     "desiredKeys") ?? WireDecoding.stringList(doc["desiredKeys"],
                    "desiredKeys"))
        notificationInfo.title = try info.string("title")
        notificationInfo.titleLocalizationKey = try info.string("titleLocalizationKey")
        notificationInfo.titleLocalizationArgs = try WireDecoding.stringList(info["titleLocalizationArgs"],
                "titleLocalizationArgs")
        notificationInfo.subtitle = try info.string("subtitle")
        notificationInfo.subtitleLocalizationKey = try info.string("subtitleLocalizationKey")
        notificationInfo.subtitleLocalizationArgs = try WireDecoding.stringList(info["subtitleLocalizationArgs"],
                "subtitleLocalizationArgs")
        notificationInfo.category = try info.string("category")
        notificationInfo.collapseIDKey = try info.string("collapseIDKey")
        notificationInfo.shouldSendMutableContent = try info.bool("shouldSendMutableContent")
        switch doc["subscriptionType"]?.string.flatMap(SubscriptionType.init) {
        case .query?:
            let q = try WireDecoding.query(doc["query"], zone: nil, limit: 1, marker: nil, desiredKeys: nil)
            let fires = Set((try WireDecoding.stringList(doc["firesOn"],
                                                         "firesOn") ?? []).compactMap(Subscription.FiresOn.init))
            let zoneWide = try doc.bool("zoneWide") ?? true
            let zone = doc["zoneID"].flatMap { $0.isNull ? nil : $0 }.map { try? WireDecoding.zoneID($0) } ?? nil
            return Subscription(subscriptionID: id, kind: .query(recordType: q.recordType, filters: q.filters,
                                                                 firesOn: fires,
                                                                 firesOnce: try doc.bool("firesOnce") ?? false, zoneID: zoneWide ? nil : zone),
                                notificationInfo: notificationInfo)
        case .zone?:
            guard database != .public else { throw StratusError.badRequest("zone subscriptions are for private and shared databases; the public database has only the default zone") }
            let zone = try WireDecoding.zoneID(doc["zoneID"])
            guard !zone.isDefault else { throw StratusError.badRequest("a zone subscription needs a custom zone") }
            return Subscription(subscriptionID: id, kind: .zone(zone), notificationInfo: notificationInfo)
        case .database?, nil:
            guard database != .public else { throw StratusError.badRequest("database subscriptions are for private and shared databases") }
            return Subscription(subscriptionID: id, kind: .database, notificationInfo: notificationInfo)
        }
    }
}
