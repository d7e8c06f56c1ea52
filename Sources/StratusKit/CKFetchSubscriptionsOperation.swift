import Foundation

/// Mirrors `CKFetchSubscriptionsOperation`: subscriptions by ID, or all (`fetchAllSubscriptionsOperation()`).
open class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchSubscriptionsOperation.subscriptionIDs`.
    public var subscriptionIDs: [CKSubscription.ID]?
    /// Mirrors `CKFetchSubscriptionsOperation.perSubscriptionResultBlock`.
    public var perSubscriptionResultBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Mirrors `CKFetchSubscriptionsOperation.fetchSubscriptionsResultBlock`.
    public var fetchSubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `fetchSubscriptionCompletionBlock`.
    public var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?

    /// Mirrors `CKFetchSubscriptionsOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKFetchSubscriptionsOperation(subscriptionIDs:)`.
    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// Mirrors `CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation`.
    public static func fetchAllSubscriptionsOperation() -> CKFetchSubscriptionsOperation { CKFetchSubscriptionsOperation() }

    override func execute() async {
        await finishing(result: { fetchSubscriptionsResultBlock?($0) },
                        completion: { fetchSubscriptionCompletionBlock?($0, $1) }) {
            let all = try await targetDatabase.allSubscriptions()
            let results = Dictionary(all.map { ($0.subscriptionID, Result<CKSubscription, any Error>.success($0)) },
                                     uniquingKeysWith: { a, _ in a })
            let found = ItemResults(subscriptionIDs ?? all.map(\.subscriptionID), results,
                                    missing: { CKError.make(.unknownItem,
                                                            "subscription \($0) not found") }) { perSubscriptionResultBlock?($0, $1) }
            return (found.byID, found.failure("subscriptions"))
        }
    }
}
