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
        await finishing(result: { modifySubscriptionsResultBlock?($0) }, completion: { v,
                        e in modifySubscriptionsCompletionBlock?(v?.0, v?.1, e) }) {
            let (s, d) = try await targetDatabase.modifySubscriptions(saving: saves, deleting: deletes)
            let missing = { (id: CKSubscription.ID) in CKError.make(.serverResponseLost, "no answer for \(id)") }
            let saved = ItemResults(saves.map(\.subscriptionID), s, missing: missing) { perSubscriptionSaveBlock?($0,
                    $1) }
            let deleted = ItemResults(deletes, d, missing: missing) { perSubscriptionDeleteBlock?($0, $1) }
            return ((saved.values, deleted.ids), saved.failure("subscriptions", with: deleted.errors))
        }
    }
}
