/// What a `subscriptions/modify` operation does, as CloudKit spells it: `create` saves (makes or replaces, as
/// CloudKit's save does), `update` replaces one that exists, `delete` removes it.
public enum SubscriptionOperation: String, Sendable, CaseIterable {
    case create, update, delete
}
