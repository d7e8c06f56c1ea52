import Foundation

/// Mirrors `CKFetchDatabaseChangesOperation`: which zones of a private or shared database changed or went since a
/// token, page by page while `fetchAllChanges`.
open class CKFetchDatabaseChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchDatabaseChangesOperation.previousServerChangeToken`.
    public var previousServerChangeToken: CKServerChangeToken?
    /// Mirrors `CKFetchDatabaseChangesOperation.resultsLimit`.
    public var resultsLimit: Int = 0
    /// Mirrors `CKFetchDatabaseChangesOperation.fetchAllChanges`.
    public var fetchAllChanges = true
    /// Mirrors `recordZoneWithIDChangedBlock`.
    public var recordZoneWithIDChangedBlock: ((CKRecordZone.ID) -> Void)?
    /// Mirrors `recordZoneWithIDWasDeletedBlock`.
    public var recordZoneWithIDWasDeletedBlock: ((CKRecordZone.ID) -> Void)?
    /// Mirrors `recordZoneWithIDWasPurgedBlock`.
    public var recordZoneWithIDWasPurgedBlock: ((CKRecordZone.ID) -> Void)?
    /// Mirrors `recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock`.
    public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((CKRecordZone.ID) -> Void)?
    /// Mirrors `changeTokenUpdatedBlock`: a page's token, before the next page is fetched.
    public var changeTokenUpdatedBlock: ((CKServerChangeToken) -> Void)?
    /// Mirrors `fetchDatabaseChangesResultBlock`.
    public var fetchDatabaseChangesResultBlock: ((Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool),
                                                  any Error>) -> Void)?
    /// Mirrors the deprecated `fetchDatabaseChangesCompletionBlock`.
    public var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)?

    /// Mirrors `CKFetchDatabaseChangesOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKFetchDatabaseChangesOperation(previousServerChangeToken:)`.
    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    override func execute() async {
        let db = targetDatabase
        var token = previousServerChangeToken
        do {
            while true {
                try checkCancelled()
                let page = try await db.databaseChanges(since: token, resultsLimit: resultsLimit)
                for m in page.modifications { recordZoneWithIDChangedBlock?(m.zoneID) }
                for d in page.deletions {
                    switch d.reason {
                    case .deleted: recordZoneWithIDWasDeletedBlock?(d.zoneID)
                    case .purged: (recordZoneWithIDWasPurgedBlock ?? recordZoneWithIDWasDeletedBlock)?(d.zoneID)
                    case .encryptedDataReset: (recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock ?? recordZoneWithIDWasDeletedBlock)?(d.zoneID)
                    }
                }
                token = page.changeToken
                if page.moreComing && fetchAllChanges {
                    changeTokenUpdatedBlock?(page.changeToken)
                    continue
                }
                fetchDatabaseChangesResultBlock?(.success((page.changeToken, page.moreComing)))
                fetchDatabaseChangesCompletionBlock?(page.changeToken, page.moreComing, nil)
                return
            }
        } catch {
            fetchDatabaseChangesResultBlock?(.failure(error))
            fetchDatabaseChangesCompletionBlock?(token, false, error)
        }
    }
}
