import Foundation
import StratusModel

/// What a write hands to notifications, inside its own transaction: each change that may concern a subscription
/// goes into the environment's `notification_outbox` (a row, a few hundred bytes), and each webhook that hears a
/// public change gets its delivery queued. Nothing is matched against subscriptions here: the fan-out does that
/// after the commit, in turns of bounded work (see `NotificationFanOut`), so a user whose change fires ten thousand
/// subscriptions no longer holds the environment's writer, which every other user's write needs, while they are
/// matched and written. A crash between the commit and the fan-out loses nothing: the outbox is read on.
struct NotificationHandOff {
    let index: SubscriptionIndex
    /// Enabled webhooks: they hear public-database changes of their record types.
    let webhooks: [Webhook]
    let store: NotificationStore
    var container: ContainerID { store.container }
    var environment: ContainerEnvironment { store.environment }
    /// Changes put in the outbox by this transaction.
    private(set) var handedOff = 0
    private var queuedWebhook = false
    private var webhooksQueued = 0
    private var nids = NotificationIDs()

    init(index: SubscriptionIndex, webhooks: [Webhook], store: NotificationStore) {
        self.index = index
        self.webhooks = webhooks
        self.store = store
    }

    /// A record changed: its webhook deliveries are queued, and the change is kept for the fan-out when a
    /// subscription could hear it. ENCRYPTED values are the app's secret: no webhook body or notification carries them.
    mutating func recordChanged(before: StoredRecord?, after: StoredRecord?, zone: ZoneID, database: DatabaseID,
                                catalog: Catalog,
                                zoneRow: Int64? = nil, _ db: any SQLSession) throws {
        guard let type = (after ?? before)?.recordType else { return }
        var before = before, after = after
        if let hidden = catalog.type(named: type)?.fields.filter({ $0.type.encrypted }).map(\.name), !hidden.isEmpty {
            for name in hidden {
                before?.fields.removeValue(forKey: name)
                after?.fields.removeValue(forKey: name)
            }
        }
        if database.scope == .public, !webhooks.isEmpty {
            try queueWebhooks(type: type, before: before, after: after, zone: zone, db)
        }
        let concerns = index.mayConcern(before: before, after: after,
                                        in: database) || (database.scope == .private && index.hasShared && zoneRow != nil)
        guard concerns else { return }
        try put(NotificationChange(kind: .record(before: before, after: after, zoneRow: zoneRow), database: database,
                                   zone: zone), db)
    }

    /// A zone created or deleted: kept for the fan-out when its database has a database subscription.
    mutating func zoneChanged(_ zone: ZoneID, database: DatabaseID, deleted: Bool, _ db: any SQLSession) throws {
        guard database.scope != .public, index.entries(of: database).contains(where: { $0.kind == .database }) else { return }
        try put(NotificationChange(kind: .zone(deleted: deleted), database: database, zone: zone), db)
    }

    private mutating func put(_ change: NotificationChange, _ db: any SQLSession) throws {
        try NotificationOutboxRows.add(change.encoded, at: WallClock.nowMillis(), db)
        handedOff += 1
    }

    /// Once the transaction commits (never if it rolls back): the fan-out is told there is work, the webhook
    /// deliverer is woken. Call it last in the transaction.
    func finish(_ s: any SQLSession) throws {
        if webhooksQueued > 0 {
            let (counter, w) = (store.notificationCounter, webhooksQueued)
            s.afterCommit { counter.add(notifications: 0, webhooks: w, evicted: 0) }
        }
        if queuedWebhook {
            let bell = store.bell
            s.afterCommit { bell.ring([NotificationBell.webhooks]) }
            if store.peers != nil { try CacheInvalidation.ringEverywhere([NotificationBell.webhooks], s) }
        }
        if handedOff > 0 {
            let store = self.store
            s.afterCommit { store.fanOutDue() }
        }
    }

    /// One delivery per webhook that hears this type, in this transaction. The body says what changed and, unless
    /// deleted, the record's fields as plain JSON.
    private mutating func queueWebhooks(type: String, before: StoredRecord?, after: StoredRecord?, zone: ZoneID,
                                        _ db: any SQLSession) throws {
        let hearing = webhooks.filter { $0.hears(type) }
        guard !hearing.isEmpty, let record = after ?? before else { return }
        let reason = after == nil ? "deleted" : before == nil ? "created" : "updated"
        queuedWebhook = true
        let now = WallClock.nowMillis()
        for hook in hearing {
            webhooksQueued += 1
            let nid = nids.next()
            let json = Self.webhookBody(nid: nid, container: container, environment: environment, zone: zone,
                                        type: type, record: record,
                                        after: after, reason: reason, now: now)
            try WebhookDeliveries.enqueue(webhook: hook.id, nid: nid, payload: json, at: now, db)
        }
    }

    /// A webhook delivery's body: what changed, where, and the record's fields after it (plain JSON), members in
    /// key order so that equal changes make equal bytes.
    static func webhookBody(nid: String, container: ContainerID, environment: ContainerEnvironment, zone: ZoneID,
                            type: String, record: StoredRecord,
                            after: StoredRecord?, reason: String, now: Int64) -> String {
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        w.field("containerIdentifier", container.rawValue)
        w.field("database", "public")
        w.field("environment", environment.rawValue)
        if let after {
            w.key("fields")
            w.beginObject()
            for k in after.fields.keys.sorted() {
                let mark = w.mark()
                w.key(k)
                if !w.plain(after.fields[k]!) { w.rollback(to: mark) }
            }
            w.endObject()
        }
        w.field("notificationID", nid)
        w.field("reason", reason)
        if let tag = after?.recordChangeTag { w.field("recordChangeTag", tag) }
        w.field("recordName", record.recordName)
        w.field("recordType", type)
        w.field("timestamp", now)
        w.field("zoneName", zone.zoneName)
        w.endObject()
        return String(decoding: w.bytes, as: UTF8.self)
    }

}
