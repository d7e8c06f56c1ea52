import Foundation
import StratusJSON

/// A subscription in CloudKit Web Services' form, the one document a subscription is kept as: normalized once
/// when saved, parsed into a `Subscription` wherever writes are matched against it.
extension Subscription {
    /// The subscription as stored and answered: a query subscription with its `zoneWide` and `firesOnce`
    /// defaults, a zone or database subscription without the members that are not its kind's. BAD_REQUEST for
    /// what is not a subscription.
    package static func normalized(_ j: JSON?, id: String) throws(StratusError) -> JSON {
        guard var o = j?.object else { throw .badRequest("each operation needs a subscription object") }
        guard !id.isEmpty else { throw .badRequest("a subscription needs a subscriptionID") }
        o["subscriptionID"] = .string(id)
        switch o["subscriptionType"]?.string.flatMap(SubscriptionType.init) {
        case .query?:
            guard let q = o["query"] else { throw .badRequest("a query subscription needs a query") }
            _ = try WireDecoding.query(q, zone: nil, limit: 1, marker: nil, desiredKeys: nil)
            let fires = try WireDecoding.stringList(o["firesOn"], "firesOn") ?? []
            guard !fires.isEmpty, fires.allSatisfy({ ["create", "update", "delete"].contains($0) }) else {
                throw .badRequest("firesOn must list create, update and/or delete")
            }
            if o["zoneWide"] == nil { o["zoneWide"] = .bool(true) }
            if o["firesOnce"] == nil { o["firesOnce"] = .bool(false) }
        case .zone?:
            guard o["zoneID"] != nil else { throw .badRequest("a zone subscription needs a zoneID") }
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
            throw .badRequest("subscriptionType must be query, zone or database")
        }
        return .object(o)
    }

    /// The parsed subscription the store matches writes against. Zone and database subscriptions exist only in
    /// private and shared databases, and a zone subscription names a custom zone.
    package init(wire doc: JSON, id: String, database: DatabaseScope) throws(StratusError) {
        let info = doc["notificationInfo"] ?? .object([:])
        // desiredKeys may stand beside notificationInfo as well as in it.
        var desiredKeys = try WireDecoding.stringList(info["desiredKeys"], "desiredKeys")
        if desiredKeys == nil { desiredKeys = try WireDecoding.stringList(doc["desiredKeys"], "desiredKeys") }
        var notificationInfo = NotificationInfo(
            alertBody: try info.string("alertBody"), alertLocalizationKey: try info.string("alertLocalizationKey"),
            alertLocalizationArgs: try WireDecoding.stringList(info["alertLocalizationArgs"], "alertLocalizationArgs"),
            alertActionLocalizationKey: try info.string("alertActionLocalizationKey"), alertLaunchImage: try info.string("alertLaunchImage"),
            soundName: try info.string("soundName"), shouldBadge: try info.bool("shouldBadge") ?? false,
            shouldSendContentAvailable: try info.bool("shouldSendContentAvailable") ?? false,
            desiredKeys: desiredKeys)
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
            self.init(subscriptionID: id, kind: .query(recordType: q.recordType, filters: q.filters,
                                                                 firesOn: fires,
                                                                 firesOnce: try doc.bool("firesOnce") ?? false, zoneID: zoneWide ? nil : zone),
                                notificationInfo: notificationInfo)
        case .zone?:
            guard database != .public else { throw .badRequest("zone subscriptions are for private and shared databases; the public database has only the default zone") }
            let zone = try WireDecoding.zoneID(doc["zoneID"])
            guard !zone.isDefault else { throw .badRequest("a zone subscription needs a custom zone") }
            self.init(subscriptionID: id, kind: .zone(zone), notificationInfo: notificationInfo)
        case .database?, nil:
            guard database != .public else { throw .badRequest("database subscriptions are for private and shared databases") }
            self.init(subscriptionID: id, kind: .database, notificationInfo: notificationInfo)
        }
    }
}
