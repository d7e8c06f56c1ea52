import Foundation
import StratusModel

/// Decides which subscriptions a record change fires and appends their notifications to the log, in the fan-out's
/// transaction after the write committed (see `NotificationFanOut`; the write kept the change in its outbox).
/// A query subscription is tested against the record after the change (create, update) and before it (delete);
/// an update that takes a record out of the query fires as deleted, one that brings it in as created. In the
/// public database a subscription fires only if its owner may read the record at that moment.
struct NotificationOutbox {
    let index: SubscriptionIndex
    /// The environment's notifications: where its bell, counters, upkeep, peers and the log's budgets come from.
    let store: NotificationStore
    var container: ContainerID { store.container }
    var environment: ContainerEnvironment { store.environment }
    /// Subscriptions that fired once and are gone for the rest of the batch.
    private(set) var spent: Set<String> = []
    private var roles: [String: Set<String>] = [:]
    private(set) var appended = 0
    /// Users who got a notification in this transaction: who to wake.
    private var notified: Set<String> = []
    private var appendedBytes: Int64 = 0

    /// Notifications the budgets dropped while this transaction appended.
    private var evicted = 0

    init(index: SubscriptionIndex, store: NotificationStore) {
        self.index = index
        self.store = store
    }

    /// Writes the notifications gathered by this transaction (a row per recipient) and wakes their listeners once it
    /// commits (never if it rolls back). Call it last in the transaction.
    mutating func finish(_ s: any SQLSession) throws {
        try flush(s)
        if appended > 0 || evicted > 0 {
            let counter = store.notificationCounter
            let (n, e) = (appended, evicted)
            s.afterCommit { counter.add(notifications: n, webhooks: 0, evicted: e) }
        }
        if appendedBytes > 0 {
            let (upkeep, bytes) = (store.upkeep, appendedBytes)
            s.afterCommit { upkeep.appended(bytes) }
        }
        guard !notified.isEmpty else { return }
        let bell = store.bell
        let keys = notified.map { NotificationBell.key(container, environment, user: $0) }
        s.afterCommit { bell.ring(keys) }
        // PostgreSQL delivers a NOTIFY at commit and never after a rollback, like `afterCommit`: the other servers
        // ring the same keys, so a listener connected to any of them hears this write.
        if store.peers != nil { try CacheInvalidation.ringEverywhere(keys, s) }
    }

    private mutating func flush(_ s: any SQLSession) throws {
        guard !pending.isEmpty else { return }
        // One row per recipient, their groups in the order they came.
        var order: [String] = []
        var byUser: [String: [NotificationBatch.Group]] = [:]
        for g in pending {
            if byUser[g.heading.user] == nil { order.append(g.heading.user) }
            byUser[g.heading.user, default: []].append(g)
        }
        let rows = order.map { user in
            let groups = byUser[user] ?? []
            return NotificationLog.Row(user: user, text: NotificationBatch.encode(groups),
                                       count: groups.reduce(0) { $0 + $1.subscriptionIDs.count })
        }
        // Each recipient's row takes the next number of their own order (see `NotificationLog`).
        let appended = try NotificationLog.append(createdAt: WallClock.nowMillis(), rows: rows,
                                                  policy: store.notificationPolicy, s)
        evicted += appended.evicted
        appendedBytes += appended.bytes
        pending.removeAll()
        pendingCount = 0
        groupOf.removeAll(keepingCapacity: true)
        lastGroup = nil
    }

    /// What one change's notifications share, each worked out once per change (emptied when the next starts): the
    /// `af` by `desiredKeys` (see `NotificationPayload.member`), the member templates, and the group each user's
    /// alike notifications join. A change that fires a thousand subscriptions of one user then costs a thousand
    /// dictionary lookups and subscription IDs, not a thousand payloads.
    private var fieldsMemo: [[String]: (json: [UInt8], pruned: Bool)] = [:]
    private struct TemplateKey: Hashable {
        var kind: SubscriptionEntry.Kind
        var templateClass: Int
        var scope: DatabaseScope
        var owner: String?
        var reason: Int
    }
    private var templateIDs: [TemplateKey: Int] = [:]
    private var templates: [String] = []
    private struct GroupKey: Hashable {
        var groupClass, template: Int
    }
    private var groupOf: [GroupKey: Int] = [:]
    private var lastTemplate: (key: TemplateKey, id: Int)?
    private var lastGroup: (key: GroupKey, index: Int)?

    /// The changed public record's type's grants, and whether everyone may read it (worked out once per change).
    private var publicReads: (grants: [String: Permission], everyone: Bool)?

    /// Whether the change fires each match class (see `SubscriptionEntry.matchClass`), worked out once per change.
    private var firedMemo: [Int: UInt8] = [:]

    private mutating func changeStarts() {
        publicReads = nil
        firedMemo.removeAll(keepingCapacity: true)
        fieldsMemo.removeAll(keepingCapacity: true)
        templateIDs.removeAll(keepingCapacity: true)
        templates.removeAll(keepingCapacity: true)
        groupOf.removeAll(keepingCapacity: true)
        lastTemplate = nil
        lastGroup = nil
    }

    /// What this transaction's notifications hold so far, not yet written.
    private var pending: [NotificationBatch.Group] = []
    private var pendingCount = 0

    /// `zoneRow`: the zone's row id, by which a private zone's shares are found (their participants' shared-database
    /// subscriptions hear the change too).
    /// The subscriptions a change concerns, in their keys' order, for a change the fan-out takes in several turns:
    /// sorted once, and kept (by `NotificationStore`) while the index it was made from stands.
    struct Plan: Sendable {
        let build: Int
        let work: [(key: String, entry: Entry, database: DatabaseID)]
    }

    /// The change's notifications (its records' ENCRYPTED fields left out already, see `NotificationHandOff`), for
    /// at most `limit` of the subscriptions it concerns. A change that concerns more is taken in the order of the
    /// subscriptions' keys (`SubscriptionEntry.key`, the order of its `plan`), after `resumeAfter`: the key of the
    /// last one looked at is returned, to go on after it in the next turn; nil when the change is done.
    mutating func recordChanged(before: StoredRecord?, after: StoredRecord?, zone: ZoneID, database: DatabaseID,
                                catalog: Catalog,
                                zoneRow: Int64? = nil, resumeAfter: String? = nil, limit: Int = .max, plan: inout Plan?,
                                _ db: any SQLSession) throws -> String? {
        guard (after ?? before)?.recordType != nil else { return nil }
        changeStarts()
        if plan?.build != index.build { plan = nil }
        if plan == nil {
            var work = index.candidates(before: before, after: after, in: database).map { ($0, database) }
            if database.scope == .private, let zoneRow, index.hasShared {
                for user in try participants(seeing: (after ?? before)!.recordName, zoneRow: zoneRow, db) {
                    let shared = DatabaseID.sharedDatabase(of: user)
                    work += index.entries(of: shared).map { ($0, shared) }
                }
            }
            if work.count <= limit && resumeAfter == nil {
                for (entry, into) in work { try notify(entry, before: before, after: after, zone: zone, database: into,
                                                       catalog: catalog, db) }
                looked += work.count
                return nil
            }
            plan = Plan(build: index.build, work: work.map { (key: $0.0.key, entry: $0.0,
                                                              database: $0.1) }.sorted { $0.key < $1.key })
        }
        let work = plan!.work
        // The first subscription after the one the last turn stopped at.
        var low = 0, high = work.count
        if let resumeAfter {
            while low < high {
                let mid = (low + high) / 2
                if work[mid].key <= resumeAfter { low = mid + 1 } else { high = mid }
            }
        }
        let end = min(work.count, low + limit)
        for item in work[low..<end] {
            try notify(item.entry, before: before, after: after, zone: zone, database: item.database, catalog: catalog,
                       db)
        }
        looked += end - low
        return end < work.count ? work[end - 1].key : nil
    }

    /// Subscriptions looked at by this transaction (what a fan-out turn is bounded by).
    private(set) var looked = 0

    /// Accepted participants of a private zone's shares (owner excepted) and what each covers, read once per zone
    /// per transaction: the zone share's users see every record, a hierarchy share's users those it covers.
    private var zoneParticipants: [Int64: [(user: String, shareID: Int64?)]] = [:]

    private mutating func participants(seeing name: String, zoneRow: Int64, _ db: any SQLSession) throws -> [String] {
        if zoneParticipants[zoneRow] == nil {
            zoneParticipants[zoneRow] = try ShareRows.acceptedParticipants(zone: zoneRow, db)
        }
        let all = zoneParticipants[zoneRow]!
        guard !all.isEmpty else { return [] }
        let covering = all.contains { $0.shareID != nil } ? try RecordLinks.link(db, zone: zoneRow,
                name: name)?.shareID : nil
        var users: [String] = []
        for p in all where (p.shareID == nil || p.shareID == covering) && !users.contains(p.user) { users.append(p.user) }
        return users
    }

    private mutating func notify(_ entry: Entry, before: StoredRecord?, after: StoredRecord?, zone: ZoneID,
                                 database: DatabaseID, catalog: Catalog, _ db: any SQLSession) throws {
        // Only a subscription that fires once can be spent: the others need no key.
        let once = entry.firesOnce
        let key = once ? entry.key : ""
        if once && spent.contains(key) { return }
        guard let reason = try reason(entry, before: before, after: after, zone: zone, database: database,
                                      catalog: catalog, db) else { return }
        if once {
            // The subscription is claimed by deleting its row before it fires: a turn that ran on an index read before
            // another turn spent it (PostgreSQL's turns may overlap) finds no row to delete, and stays silent.
            spent.insert(key)
            guard let freed = try SubscriptionRows.delete(entry.scope, owner: entry.owner,
                                                          id: entry.subscription.subscriptionID, db) else { return }
            try UserUsage.add([entry.owner: -freed], db)
        }
        try append(entry, reason: reason, record: after ?? before!, zone: zone, db)
    }

    /// A zone created or deleted: the owner's database subscriptions hear it (what `changes/database` then lists).
    mutating func zoneChanged(_ zone: ZoneID, database: DatabaseID, deleted: Bool, _ db: any SQLSession) throws {
        guard database.scope != .public else { return }
        changeStarts()
        for entry in index.entries(of: database) where entry.kind == .database {
            try append(entry, reason: deleted ? 3 : 1, record: nil, zone: zone, db)
        }
    }

    /// 1 created, 2 updated, 3 deleted (CloudKit's `fo`); nil when the subscription does not fire.
    private mutating func reason(_ entry: Entry, before: StoredRecord?, after: StoredRecord?, zone: ZoneID,
                                 database: DatabaseID,
                                 catalog: Catalog, _ db: any SQLSession) throws -> Int? {
        switch entry.kind {
        case .database:
            return after == nil ? 3 : before == nil ? 1 : 2
        case .zone:
            guard entry.zoneName == zone.zoneName else { return nil }
            return after == nil ? 3 : before == nil ? 1 : 2
        case .query:
            if let only = entry.zoneName, only != zone.zoneName { return nil }
            let fired: UInt8
            if entry.matchClass >= 0, let known = firedMemo[entry.matchClass] { fired = known } else {
                func matches(_ r: StoredRecord?) -> Bool {
                    guard let r, r.recordType == entry.recordType else { return false }
                    for f in entry.filters where !f.matches(r) { return false }
                    return true
                }
                let was = matches(before), isNow = matches(after)
                fired = was ? (isNow ? 2 : 4) : (isNow ? 1 : 0)
                if entry.matchClass >= 0 { firedMemo[entry.matchClass] = fired }
            }
            guard fired != 0, entry.firesOn & fired != 0 else { return nil }
            if database.scope == .public {
                let r = after ?? before!
                if publicReads == nil {
                    let grants = catalog.type(named: r.recordType)?.grants ?? SecurityRole.defaultGrants
                    publicReads = (grants, grants[SecurityRole.world]?.contains(.read) == true)
                }
                // Readable by everyone (the common case): no one's permission to look at, one check per change.
                if publicReads!.everyone == false {
                    let grants = publicReads!.grants
                    let creator = r.created?.userRecordName
                    // Roles are looked up only when the grants to any signed-in user and to the creator fall short.
                    if !SecurityPolicy.allows(.read, grants: grants, caller: Caller(userRecordName: entry.owner,
                            roles: []), creator: creator) {
                        let caller = Caller(userRecordName: entry.owner, roles: try roles(of: entry.owner,
                                catalog: catalog, db))
                        guard SecurityPolicy.allows(.read, grants: grants, caller: caller,
                                                    creator: creator) else { return nil }
                    }
                }
            }
            return fired == 1 ? 1 : fired == 2 ? 2 : 3
        }
    }

    typealias Entry = SubscriptionIndex.Entry

    private mutating func roles(of user: String, catalog: Catalog, _ db: any SQLSession) throws -> Set<String> {
        if let r = roles[user] { return r }
        let r = try RoleMembers.roles(of: user, db).intersection(catalog.roles)
        roles[user] = r
        return r
    }

    private mutating func append(_ entry: Entry, reason: Int, record: StoredRecord?, zone: ZoneID,
                                 _ db: any SQLSession) throws {
        if pendingCount == NotificationBatch.maximumPerBatch - 1 { try flush(db) }
        // The zone's owner goes into the member when the zone names none (a private zone of the subscriber's).
        let key = TemplateKey(kind: entry.kind, templateClass: entry.templateClass, scope: entry.scope,
                              owner: zone.ownerRecordName == nil && entry.scope != .public ? entry.owner : nil, reason: reason)
        let template: Int
        // A change's candidates come one user's subscriptions after another: most lookups repeat the last one.
        if let last = lastTemplate, last.key == key { template = last.id } else if let t = templateIDs[key] {
            template = t
            lastTemplate = (key, t)
        } else {
            templates.append(NotificationPayload.member(owner: entry.owner, scope: entry.scope,
                                                        subscription: entry.subscription, reason: reason,
                    record: record,
                                                        zone: zone, fieldsMemo: &fieldsMemo, idPlaceholder: true))
            template = templates.count - 1
            templateIDs[key] = template
            lastTemplate = (key, template)
        }
        let group = GroupKey(groupClass: entry.groupClass, template: template)
        if let last = lastGroup, last.key == group {
            pending[last.index].subscriptionIDs.append(entry.subscription.subscriptionID)
        } else if let g = groupOf[group] {
            pending[g].subscriptionIDs.append(entry.subscription.subscriptionID)
            lastGroup = (group, g)
        } else {
            groupOf[group] = pending.count
            lastGroup = (group, pending.count)
            let heading = NotificationBatch.Heading(user: entry.owner, scope: entry.scope.rawValue,
                                                    recordName: record?.recordName, reason: reason,
                                                    aps: entry.aps.field)
            pending.append(NotificationBatch.Group(heading: heading, template: templates[template],
                                                   subscriptionIDs: [entry.subscription.subscriptionID]))
            notified.insert(entry.owner)
        }
        pendingCount += 1
        appended += 1
    }
}
