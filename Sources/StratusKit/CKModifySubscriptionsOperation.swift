import Foundation

/// Mirrors `CKModifySubscriptionsOperation`.
open class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKModifySubscriptionsOperation.subscriptionsToSave`.
    public var subscriptionsToSave: [CKSubscription]?
    /// Mirrors `CKModifySubscriptionsOperation.subscriptionIDsToDelete`.
    public var subscriptionIDsToDelete: [CKSubscription.ID]?
    /// Mirrors `CKModifySubscriptionsOperation.perSubscriptionSaveBlock`.
    public var perSubscriptionSaveBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    /// Mirrors `CKModifySubscriptionsOperation.perSubscriptionDeleteBlock`.
    public var perSubscriptionDeleteBlock: ((CKSubscription.ID, Result<Void, any Error>) -> Void)?
    /// Mirrors `CKModifySubscriptionsOperation.modifySubscriptionsResultBlock`.
    public var modifySubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `modifySubscriptionsCompletionBlock`.
    public var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?

    /// Mirrors `CKModifySubscriptionsOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKModifySubscriptionsOperation(subscriptionsToSave:subscriptionIDsToDelete:)`.
    public convenience init(subscriptionsToSave: [CKSubscription]?, subscriptionIDsToDelete: [CKSubscription.ID]?) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    override func execute() async {
        let saves = subscriptionsToSave ?? [], deletes = subscriptionIDsToDelete ?? []
        do {
            try checkCancelled()
            let (s, d) = try await targetDatabase.modifySubscriptions(saving: saves, deleting: deletes)
            var saved: [CKSubscription] = [], deleted: [CKSubscription.ID] = [], errors: [AnyHashable: any Error] = [:]
            for sub in saves {
                let r = s[sub.subscriptionID] ?? .failure(CKError.make(.serverResponseLost, "no answer for \(sub.subscriptionID)"))
                perSubscriptionSaveBlock?(sub.subscriptionID, r)
                switch r {
                case .success(let x): saved.append(x)
                case .failure(let e): errors[sub.subscriptionID] = e
                }
            }
            for id in deletes {
                let r = d[id] ?? .failure(CKError.make(.serverResponseLost, "no answer for \(id)"))
                perSubscriptionDeleteBlock?(id, r)
                switch r {
                case .success: deleted.append(id)
                case .failure(let e): errors[id] = e
                }
            }
            let failure = partialFailure(errors, "subscriptions")
            modifySubscriptionsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            modifySubscriptionsCompletionBlock?(saved, deleted, failure)
        } catch {
            modifySubscriptionsResultBlock?(.failure(error))
            modifySubscriptionsCompletionBlock?(nil, nil, error)
        }
    }
}

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
