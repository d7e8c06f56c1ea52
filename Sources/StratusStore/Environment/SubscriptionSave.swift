/// How `SubscriptionStore.saveSubscription` treats a subscription ID that is, or is not, taken.
public enum SubscriptionSave: Sendable {
    /// CloudKit's save: makes the subscription, or replaces the one with its ID, in one transaction — so two
    /// devices of a user saving their database subscription at once both succeed, whichever comes first.
    case createOrReplace
    /// Web Services' `update`: replaces an existing subscription, NOT_FOUND when there is none.
    case update
}
