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
        do {
            try checkCancelled()
            let all = try await targetDatabase.allSubscriptions()
            var byID: [CKSubscription.ID: CKSubscription] = [:]
            for s in all { byID[s.subscriptionID] = s }
            let wanted = subscriptionIDs ?? all.map(\.subscriptionID)
            var found: [CKSubscription.ID: CKSubscription] = [:], errors: [AnyHashable: any Error] = [:]
            for id in wanted {
                if let s = byID[id] {
                    found[id] = s
                    perSubscriptionResultBlock?(id, .success(s))
                } else {
                    let e = CKError.make(.unknownItem, "subscription \(id) not found")
                    errors[id] = e
                    perSubscriptionResultBlock?(id, .failure(e))
                }
            }
            let failure = partialFailure(errors, "subscriptions")
            fetchSubscriptionsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            fetchSubscriptionCompletionBlock?(found, failure)
        } catch {
            fetchSubscriptionsResultBlock?(.failure(error))
            fetchSubscriptionCompletionBlock?(nil, error)
        }
    }
}
