/// A subscription's `subscriptionType` on the wire: what it fires on.
public enum SubscriptionType: String, Sendable, CaseIterable {
    /// Records that match a query change.
    case query
    /// Anything in one zone changes.
    case zone
    /// Anything in the database changes.
    case database
}
