import Foundation
import StratusModel
import Synchronization

/// Subscriptions, each owned by the user who saved it in one database scope (a public-database subscription too
/// belongs to its user, who alone hears it), each kept as one wire document (`Subscription.normalized`) and parsed
/// (`Subscription(wire:)`) when writes are matched against it.
public final class SubscriptionStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let quota: QuotaStore
    /// Subscriptions grouped for matching (nil until first needed after a change to them), and how many times it was
    /// dropped: an index read before a drop is not kept after it, so it never outlives the change that dropped it.
    private let subscriptionIndex = Mutex<(index: SubscriptionIndex?, drops: Int)>((nil, 0))

    init(core: EnvironmentDatabase, quota: QuotaStore) {
        self.core = core
        self.quota = quota
    }

    public func all(in scope: DatabaseScope, owner: String) throws(StratusError) -> [(id: String, document: String)] {
        try read { s, _ in try SubscriptionRows.documents(scope, owner: owner, s) }
    }

    /// Every subscription of the environment, of every user and database, newest first (for the console).
    public func allSubscriptions(limit: Int = 1000) throws(StratusError) -> [(scope: DatabaseScope, owner: String,
            id: String, document: String, createdAt: Int64)] {
        try read { s, _ in try SubscriptionRows.newest(limit: limit, s) }
    }

    public func subscription(_ id: String, in scope: DatabaseScope, owner: String) throws(StratusError) -> String? {
        try read { s, _ in try SubscriptionRows.document(scope, owner: owner, id: id, s) }
    }

    /// Creates or replaces (`mode`, see `SubscriptionSave`) a subscription from its wire form; `.update` of a missing
    /// one is NOT_FOUND, and what is not a subscription (`Subscription.normalized`) is BAD_REQUEST. A new one past the
    /// owner's or the environment's cap is LIMIT_EXCEEDED; a `notificationInfo` whose `aps` is over
    /// `NotificationPolicy.maximumAPSBytes` is BAD_REQUEST; one past `SubscriptionLimits` is refused. A subscription
    /// is stored data: it counts toward the environment's quota and its owner's (QUOTA_EXCEEDED past either). Answers
    /// the document as stored.
    @discardableResult
    public func saveSubscription(_ id: String, wire: JSON?, in scope: DatabaseScope, owner: String,
                                 as mode: SubscriptionSave = .createOrReplace) throws(StratusError) -> JSON {
        guard !id.isEmpty, id.utf8.count <= 255 else { throw .badRequest("subscriptionID must be 1 to 255 bytes") }
        let wire = try Subscription.normalized(wire, id: id)
        let document = wire.serialized
        guard document.utf8.count <= 64 * 1024 else { throw .badRequest("a subscription is at most 64 KB") }
        let subscription = try Subscription(wire: wire, id: id, database: scope)
        let aps = NotificationInfos.APS(subscription.notificationInfo)
        if aps.text.utf8.count > NotificationPolicy.maximumAPSBytes {
            throw .badRequest("notificationInfo makes \(aps.text.utf8.count) bytes of alert, sound and badge; at most \(NotificationPolicy.maximumAPSBytes) are allowed (notifications carry short texts)")
        }
        let policy = core.notificationPolicy, userQuota = core.userQuotaBytes
        try quota.checkQuota()
        try write { s, catalog in
            try SubscriptionLimits.check(subscription, fields: { catalog.type(named: $0).map { Set($0.fields.map(\.name)) } },
                                         anyField: { name in catalog.types.contains { $0.field(named: name) != nil } })
            let old = try SubscriptionRows.charge(scope, owner: owner, id: id, s)
            let exists = old != nil
            if mode == .update && !exists { throw StratusError(.notFound, "subscription '\(id)' does not exist") }
            let charge = UserUsage.charge(subscriptionDocument: document) - (old ?? 0)
            if let userQuota, charge > 0 {
                let using = try UserUsage.bytes(owner, s)
                if using + charge > userQuota { throw UserUsage.refusal(owner, using: using, adding: charge,
                        limit: userQuota) }
            }
            try UserUsage.add([owner: charge], s)
            try NotificationInfos.keep(aps, s)
            if exists {
                try SubscriptionRows.replace(scope, owner: owner, id: id, document: document, s)
            } else {
                try SubscriptionRows.checkCaps(owner: owner, policy: policy, s)
                try SubscriptionRows.insert(scope, owner: owner, id: id, document: document, s)
            }
        }
        subscriptionsChanged()
        return wire
    }

    /// `saveSubscription(_:wire:in:owner:as:)` from the document's text; text that is not JSON is BAD_REQUEST.
    @discardableResult
    public func saveSubscription(_ id: String, document: String, in scope: DatabaseScope, owner: String,
                                 as mode: SubscriptionSave = .createOrReplace) throws(StratusError) -> JSON {
        guard let wire = try? JSON.parse(Data(document.utf8)) else { throw .badRequest("a subscription is a JSON object") }
        return try saveSubscription(id, wire: wire, in: scope, owner: owner, as: mode)
    }

    public func deleteSubscription(_ id: String, in scope: DatabaseScope, owner: String) throws(StratusError) {
        try write { s, _ in
            guard let freed = try SubscriptionRows.delete(scope, owner: owner, id: id, s) else {
                throw StratusError(.notFound, "subscription '\(id)' does not exist")
            }
            try UserUsage.add([owner: -freed], s)
        }
        subscriptionsChanged()
    }

    /// Every subscription, grouped for matching: read once after each change to them.
    func index(_ db: any SQLSession) throws -> SubscriptionIndex {
        let (cached, drops) = subscriptionIndex.withLock { ($0.index, $0.drops) }
        if let cached { return cached }
        let entries = try SubscriptionRows.everyDocument(db).compactMap { row -> (owner: String, scope: DatabaseScope,
                subscription: Subscription)? in
            guard let wire = try? JSON.parse(Data(row.document.utf8)),
                  let s = try? Subscription(wire: wire, id: row.id, database: row.scope) else { return nil }
            return (row.owner, row.scope, s)
        }
        let index = SubscriptionIndex(entries)
        subscriptionIndex.withLock { if $0.drops == drops { $0.index = index } }
        return index
    }

    /// Forgets the grouped subscriptions here and on every other server; the next write reads them again.
    func subscriptionsChanged() {
        dropSubscriptionIndex()
        if let schema = postgresSchema { peers?.publish("subscriptions \(schema)") }
    }

    /// Forgets the grouped subscriptions on this server only (another server changed them).
    func dropSubscriptionIndex() {
        subscriptionIndex.withLock {
            $0.index = nil
            $0.drops += 1
        }
    }
}
