import Foundation
import StratusModel

/// One subscription as a write matches it: everything a match needs worked out once, when the index is built —
/// its `aps`, what it listens for as plain fields instead of an enum to take apart, and two small numbers that
/// say which notifications of a change can share a log line (see `NotificationOutbox.append`). A class, so that
/// going through a thousand candidates copies a thousand pointers, not a thousand subscriptions.
final class SubscriptionEntry: Sendable {
    let owner: String
    let scope: DatabaseScope
    let subscription: Subscription
    /// The subscription's `aps`, rendered once here rather than for each notification it fires.
    let aps: NotificationInfos.APS

    /// The kind of subscription, which decides the `ck` member its notifications get (`qry`, `fet`, `met`).
    enum Kind: Hashable, Sendable { case query, zone, database }
    let kind: Kind
    /// For a query subscription: its record type, filters, the changes it fires on (create 1, update 2, delete 4),
    /// whether it fires once, and the one zone it is for (nil: every zone).
    let recordType: String?
    let filters: [QueryFilter]
    let firesOn: UInt8
    let firesOnce: Bool
    let zoneName: String?
    /// Same number, same `desiredKeys` and kind: the same member template for one change.
    let templateClass: Int
    /// Same number, same owner, database and `aps`: notifications that can share a log line.
    let groupClass: Int
    /// Same number, same record type, filters, zone and changes fired on: the same answer for one change (a
    /// thousand subscriptions of one query are matched once per change).
    let matchClass: Int
    /// What names the subscription in the environment (its database's scope and owner, and its ID), and orders a
    /// change's subscriptions when the fan-out takes them in several turns.
    let key: String

    init(owner: String, scope: DatabaseScope, subscription: Subscription, templateClass: Int = 0, groupClass: Int = 0,
         matchClass: Int = -1) {
        self.owner = owner
        self.scope = scope
        self.subscription = subscription
        aps = NotificationInfos.APS(subscription.notificationInfo)
        self.templateClass = templateClass
        self.groupClass = groupClass
        self.matchClass = matchClass
        key = SubscriptionIndex.key(scope, owner) + "\u{0}" + subscription.subscriptionID
        switch subscription.kind {
        case .query(let type, let filters, let fires, let once, let zone):
            kind = .query
            recordType = type
            self.filters = filters
            firesOn = (fires.contains(.create) ? 1 : 0) | (fires.contains(.update) ? 2 : 0) | (fires.contains(.delete) ? 4 : 0)
            firesOnce = once
            zoneName = zone?.zoneName
        case .zone(let zone):
            kind = .zone
            (recordType, filters, firesOn, firesOnce, zoneName) = (nil, [], 7, false, zone.zoneName)
        case .database:
            kind = .database
            (recordType, filters, firesOn, firesOnce, zoneName) = (nil, [], 7, false, nil)
        }
    }
}
