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
