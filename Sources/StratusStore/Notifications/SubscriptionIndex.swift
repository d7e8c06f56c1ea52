import Foundation
import StratusModel
import Synchronization

/// An environment's subscriptions, grouped so that a change looks only at the ones that can match it: public
/// query subscriptions by record type, private and shared ones by their owner's database; within a group, query
/// subscriptions with an equality filter by that field's value, so that ten thousand "items where list = X"
/// subscriptions cost a write two dictionary lookups, not ten thousand filter evaluations. Built once and shared
/// until a subscription is saved or deleted.
struct SubscriptionIndex: Sendable {
    typealias Entry = SubscriptionEntry

    /// One group: entries keyed by (field, value) of their first indexable EQUALS filter, and the rest.
    struct Group: Sendable {
        var rest: [Entry] = []
        var byEquality: [FieldRef: [String: [Entry]]] = [:]

        mutating func add(_ e: Entry) {
            if e.kind == .query, let f = e.filters.first(where: { $0.comparator == .equals && SubscriptionIndex.equalityKey($0.value) != nil }) {
                byEquality[f.field, default: [:]][SubscriptionIndex.equalityKey(f.value)!, default: []].append(e)
            } else {
                rest.append(e)
            }
        }

        /// Every entry that could match the record before or after the change (the others cannot).
        func candidates(before: StoredRecord?, after: StoredRecord?) -> [Entry] {
            guard !byEquality.isEmpty else { return rest }
            var out = rest
            for (field, buckets) in byEquality {
                let a = before.flatMap { SubscriptionIndex.equalityKey(field, $0) }
                let b = after.flatMap { SubscriptionIndex.equalityKey(field, $0) }
                if let a, let hit = buckets[a] { out += hit }
                if let b, b != a, let hit = buckets[b] { out += hit }
            }
            return out
        }

        var all: [Entry] { rest + byEquality.values.flatMap { $0.values.joined() } }

        /// Whether any entry could match (what `candidates` would list), without listing them.
        func mayMatch(before: StoredRecord?, after: StoredRecord?) -> Bool {
            if !rest.isEmpty { return true }
            for (field, buckets) in byEquality {
                if let a = before.flatMap({ SubscriptionIndex.equalityKey(field,
                        $0) }), buckets[a] != nil { return true }
                if let b = after.flatMap({ SubscriptionIndex.equalityKey(field,
                        $0) }), buckets[b] != nil { return true }
            }
            return false
        }
    }

    var publicByType: [String: Group] = [:]
    var byDatabase: [String: Group] = [:]
    var isEmpty: Bool { publicByType.isEmpty && byDatabase.isEmpty }
    /// Whether any shared-database subscription exists: when none does, a private change never looks for participants.
    private(set) var hasShared = false
    /// The `aps` references the subscriptions' notifications use (see `NotificationInfos.sweep`).
    private(set) var references: Set<String> = []

    /// What decides whether a query subscription fires for a change (see `SubscriptionEntry.matchClass`).
    private struct MatchKey: Hashable {
        let recordType: String
        let filters: [QueryFilter]
        let firesOn: [String]
        let zone: String?
    }

    static func key(_ scope: DatabaseScope, _ owner: String) -> String { "\(scope.rawValue)\u{0}\(owner)" }

    /// Which build of the index this is: a change the fan-out takes in several turns keeps its order of
    /// subscriptions while the index it was made from stands (see `NotificationOutbox.Plan`).
    let build: Int = SubscriptionIndex.builds.add(1, ordering: .relaxed).newValue
    private static let builds = Atomic<Int>(0)

    /// Builds the index, numbering the entries' template and group classes (see `SubscriptionEntry`).
    init(_ subscriptions: [(owner: String, scope: DatabaseScope, subscription: Subscription)]) {
        var templateClasses: [[String]?: Int] = [:]
        var groupClasses: [String: Int] = [:]
        var matchClasses: [MatchKey: Int] = [:]
        let entries = subscriptions.map { s -> Entry in
            let keys = s.subscription.notificationInfo.desiredKeys
            let template = templateClasses[keys] ?? { templateClasses[keys] = templateClasses.count; return templateClasses.count - 1 }()
            let aps = NotificationInfos.APS(s.subscription.notificationInfo).field
            let groupKey = s.owner + "\u{0}" + s.scope.rawValue + "\u{0}" + aps
            let group = groupClasses[groupKey] ?? { groupClasses[groupKey] = groupClasses.count; return groupClasses.count - 1 }()
            var match = -1
            if case .query(let type, let filters, let fires, _, let zone) = s.subscription.kind {
                let key = MatchKey(recordType: type, filters: filters, firesOn: fires.map(\.rawValue).sorted(),
                                   zone: zone?.zoneName)
                match = matchClasses[key] ?? { matchClasses[key] = matchClasses.count; return matchClasses.count - 1 }()
            }
            return Entry(owner: s.owner, scope: s.scope, subscription: s.subscription, templateClass: template,
                         groupClass: group, matchClass: match)
        }
        for e in entries {
            if e.scope == .public {
                if let t = e.subscription.recordType { publicByType[t, default: Group()].add(e) }
            } else {
                byDatabase[Self.key(e.scope, e.owner), default: Group()].add(e)
            }
        }
        hasShared = entries.contains { $0.scope == .shared }
        for e in entries where e.aps.isReference { references.insert(String(e.aps.field.dropFirst())) }
    }

    /// The subscriptions a change of a record (as it was and as it is) in `database` can concern.
    func candidates(before: StoredRecord?, after: StoredRecord?, in database: DatabaseID) -> [Entry] {
        guard let type = (after ?? before)?.recordType else { return [] }
        let group = database.scope == .public ? publicByType[type] : byDatabase[Self.key(database.scope,
                database.ownerRecordName)]
        return group?.candidates(before: before, after: after) ?? []
    }

    /// Whether a change of a record in `database` can concern any subscription of that database (the fan-out then
    /// works out which; see `NotificationHandOff`).
    func mayConcern(before: StoredRecord?, after: StoredRecord?, in database: DatabaseID) -> Bool {
        guard let type = (after ?? before)?.recordType else { return false }
        let group = database.scope == .public ? publicByType[type] : byDatabase[Self.key(database.scope,
                database.ownerRecordName)]
        return group?.mayMatch(before: before, after: after) ?? false
    }

    /// Every subscription of one user's private or shared database.
    func entries(of database: DatabaseID) -> [Entry] { byDatabase[Self.key(database.scope,
            database.ownerRecordName)]?.all ?? [] }

    /// The value's equality key: equal under `QueryFilter.compare` means equal keys (numbers as numbers, text and
    /// references as text); nil for kinds kept out of the index (lists, bytes, locations, fractional numbers).
    static func equalityKey(_ v: FieldValue) -> String? {
        switch v {
        case .string(let s): "t" + s
        case .reference(let r): "t" + r.recordName
        case .int64(let i): "n\(i)"
        case .double(let d): d.rounded() == d && abs(d) < 9e15 ? "n\(Int64(d))" : nil
        // Equal to a number of milliseconds (see `Timestamp(millisecondsIn:)`) only when a whole one: keyed so.
        case .timestamp(let t): t.isWholeMillisecond ? "n\(t.millisSince1970)" : "s\(t.secondsSinceReferenceDate.bitPattern)"
        default: nil
        }
    }

    static func equalityKey(_ field: FieldRef, _ record: StoredRecord) -> String? {
        switch field {
        case .field(let name): record.fields[name].flatMap(equalityKey)
        case .system(.recordName): "t" + record.recordName
        case .system(.createdUserRecordName): record.created.map { "t" + $0.userRecordName }
        case .system(.modifiedUserRecordName): record.modified.map { "t" + $0.userRecordName }
        case .system(.createdTimestamp): record.created.map { "n\($0.timestamp)" }
        case .system(.modifiedTimestamp): record.modified.map { "n\($0.timestamp)" }
        case .system: nil
        }
    }
}
