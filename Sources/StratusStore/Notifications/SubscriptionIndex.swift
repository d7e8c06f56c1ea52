import Foundation
import StratusModel

/// An environment's subscriptions, grouped so that a change looks only at the ones that can match it: public
/// query subscriptions by record type, private and shared ones by their owner's database. Built once and shared
/// until a subscription is saved or deleted.
struct SubscriptionIndex: Sendable {
    struct Entry: Sendable {
        var owner: String
        var scope: DatabaseScope
        var subscription: Subscription
    }

    var publicByType: [String: [Entry]] = [:]
    var byDatabase: [String: [Entry]] = [:]
    var isEmpty: Bool { publicByType.isEmpty && byDatabase.isEmpty }

    static func key(_ scope: DatabaseScope, _ owner: String) -> String { "\(scope.rawValue)\u{0}\(owner)" }

    init(_ entries: [Entry]) {
        for e in entries {
            if e.scope == .public {
                if let t = e.subscription.recordType { publicByType[t, default: []].append(e) }
            } else {
                byDatabase[Self.key(e.scope, e.owner), default: []].append(e)
            }
        }
    }

    /// The subscriptions a change of a record of `recordType` in `database` can concern.
    func candidates(recordType: String, in database: DatabaseID) -> [Entry] {
        database.scope == .public ? publicByType[recordType] ?? [] : byDatabase[Self.key(database.scope, database.ownerRecordName)] ?? []
    }
}
