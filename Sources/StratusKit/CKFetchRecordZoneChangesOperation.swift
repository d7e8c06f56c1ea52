import Foundation

/// Mirrors `CKFetchRecordZoneChangesOperation`: each zone's changed and deleted records since its token, page by
/// page while `fetchAllChanges` (the default), reporting new tokens as it goes so an app can save progress.
open class CKFetchRecordZoneChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchRecordZoneChangesOperation.ZoneConfiguration`.
    public final class ZoneConfiguration: NSObject, @unchecked Sendable {
        /// Mirrors `CKFetchRecordZoneChangesOperation.ZoneConfiguration.previousServerChangeToken`.
        public var previousServerChangeToken: CKServerChangeToken?
        /// Mirrors `CKFetchRecordZoneChangesOperation.ZoneConfiguration.resultsLimit`.
        public var resultsLimit: Int = 0
        /// Mirrors `CKFetchRecordZoneChangesOperation.ZoneConfiguration.desiredKeys`.
        public var desiredKeys: [CKRecord.FieldKey]?

        /// Mirrors `CKFetchRecordZoneChangesOperation.ZoneConfiguration()`.
        public override init() { super.init() }

        /// Mirrors
        /// `CKFetchRecordZoneChangesOperation.ZoneConfiguration(previousServerChangeToken:resultsLimit:desiredKeys:)`.
        public convenience init(previousServerChangeToken: CKServerChangeToken? = nil, resultsLimit: Int? = nil,
                                desiredKeys: [CKRecord.FieldKey]? = nil) {
            self.init()
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit ?? 0
            self.desiredKeys = desiredKeys
        }
    }

    /// Mirrors `CKFetchRecordZoneChangesOperation.recordZoneIDs`.
    public var recordZoneIDs: [CKRecordZone.ID]?
    /// Mirrors `CKFetchRecordZoneChangesOperation.configurationsByRecordZoneID`.
    public var configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]?
    /// Mirrors `fetchAllChanges`: keep fetching pages until the server has no more (else one page per zone).
    public var fetchAllChanges = true
    /// Mirrors `recordWasChangedBlock`.
    public var recordWasChangedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Mirrors the deprecated `recordChangedBlock`.
    public var recordChangedBlock: ((CKRecord) -> Void)?
    /// Mirrors `recordWithIDWasDeletedBlock`.
    public var recordWithIDWasDeletedBlock: ((CKRecord.ID, CKRecord.RecordType) -> Void)?
    /// Mirrors `recordZoneChangeTokensUpdatedBlock`: a page's token, before the next page is fetched.
    public var recordZoneChangeTokensUpdatedBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?) -> Void)?
    /// Mirrors `recordZoneFetchResultBlock`.
    public var recordZoneFetchResultBlock: ((CKRecordZone.ID, Result<(serverChangeToken: CKServerChangeToken,
                                                                      clientChangeTokenData: Data?, moreComing: Bool),
            any Error>) -> Void)?
    /// Mirrors the deprecated `recordZoneFetchCompletionBlock`.
    public var recordZoneFetchCompletionBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool,
                                                 (any Error)?) -> Void)?
    /// Mirrors `fetchRecordZoneChangesResultBlock`.
    public var fetchRecordZoneChangesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `fetchRecordZoneChangesCompletionBlock`.
    public var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)?

    /// Mirrors `CKFetchRecordZoneChangesOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKFetchRecordZoneChangesOperation(recordZoneIDs:configurationsByRecordZoneID:)`.
    public convenience init(recordZoneIDs: [CKRecordZone.ID],
                            configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    override func execute() async {
        let db = targetDatabase
        var errors: [AnyHashable: any Error] = [:]
        var fatal: (any Error)?
        for zone in recordZoneIDs ?? [] {
            let config = configurationsByRecordZoneID?[zone]
            var token = config?.previousServerChangeToken
            do {
                while true {
                    try checkCancelled()
                    let page = try await db.zoneChangesPage(zone, since: token, desiredKeys: config?.desiredKeys,
                                                            resultsLimit: config?.resultsLimit)
                    for r in page.changed {
                        recordWasChangedBlock?(r.recordID, .success(r))
                        recordChangedBlock?(r)
                    }
                    for d in page.deleted { recordWithIDWasDeletedBlock?(d.recordID, d.recordType) }
                    token = page.token
                    if page.moreComing && fetchAllChanges {
                        recordZoneChangeTokensUpdatedBlock?(zone, page.token, nil)
                        continue
                    }
                    recordZoneFetchResultBlock?(zone, .success((page.token, nil, page.moreComing)))
                    recordZoneFetchCompletionBlock?(zone, page.token, nil, page.moreComing, nil)
                    break
                }
            } catch let e as CKError where e.code == .operationCancelled || e.code == .networkUnavailable || e.code == .notAuthenticated {
                recordZoneFetchResultBlock?(zone, .failure(e))
                recordZoneFetchCompletionBlock?(zone, token, nil, false, e)
                fatal = e
                break
            } catch {
                errors[zone] = error
                recordZoneFetchResultBlock?(zone, .failure(error))
                recordZoneFetchCompletionBlock?(zone, token, nil, false, error)
            }
        }
        let failure: (any Error)? = fatal ?? partialFailure(errors, "zones")
        fetchRecordZoneChangesResultBlock?(outcome(failure))
        fetchRecordZoneChangesCompletionBlock?(failure)
    }
}
