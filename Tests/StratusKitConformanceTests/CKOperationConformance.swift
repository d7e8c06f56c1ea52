import StratusKit

/// `CKOperation`, its configuration and group, and every operation for records, zones, subscriptions, changes and
/// shares, with the iOS 15 `Result` blocks (the iOS 8–14 blocks they replaced are deprecated and left out).
func ckOperationConformance() {
    typealias W<Root, Value> = ReferenceWritableKeyPath<Root, Value>
    let _: W<CKOperation, CKOperation.Configuration?> = \CKOperation.configuration
    let _: W<CKOperation, CKOperationGroup?> = \CKOperation.group
    let _: KeyPath<CKOperation, CKOperation.ID> = \CKOperation.operationID
    let _: W<CKOperation, (() -> Void)?> = \CKOperation.longLivedOperationWasPersistedBlock
    let _: () -> CKOperation.Configuration = CKOperation.Configuration.init
    let _: W<CKOperation.Configuration, CKContainer?> = \CKOperation.Configuration.container
    let _: W<CKOperation.Configuration, QualityOfService> = \CKOperation.Configuration.qualityOfService
    let _: W<CKOperation.Configuration, Bool> = \CKOperation.Configuration.allowsCellularAccess
    let _: W<CKOperation.Configuration, Bool> = \CKOperation.Configuration.isLongLived
    let _: W<CKOperation.Configuration, TimeInterval> = \CKOperation.Configuration.timeoutIntervalForRequest
    let _: W<CKOperation.Configuration, TimeInterval> = \CKOperation.Configuration.timeoutIntervalForResource
    let _: W<CKDatabaseOperation, CKDatabase?> = \CKDatabaseOperation.database

    // CKOperationGroup.
    let _: () -> CKOperationGroup = CKOperationGroup.init
    let _: (NSCoder) -> CKOperationGroup? = CKOperationGroup.init(coder:)
    let _: KeyPath<CKOperationGroup, String> = \CKOperationGroup.operationGroupID
    let _: W<CKOperationGroup, CKOperation.Configuration?> = \CKOperationGroup.defaultConfiguration
    let _: W<CKOperationGroup, String?> = \CKOperationGroup.name
    let _: W<CKOperationGroup, Int> = \CKOperationGroup.quantity
    let _: W<CKOperationGroup, CKOperationGroup.TransferSize> = \CKOperationGroup.expectedSendSize
    let _: W<CKOperationGroup, CKOperationGroup.TransferSize> = \CKOperationGroup.expectedReceiveSize
    let _: [CKOperationGroup.TransferSize] = [.unknown, .kilobytes, .megabytes, .tensOfMegabytes, .hundredsOfMegabytes, .gigabytes,
                                              .tensOfGigabytes, .hundredsOfGigabytes]

    // Records.
    let _: () -> CKFetchRecordsOperation = CKFetchRecordsOperation.init
    let _: ([CKRecord.ID]) -> CKFetchRecordsOperation = CKFetchRecordsOperation.init(recordIDs:)
    let _: () -> CKFetchRecordsOperation = CKFetchRecordsOperation.fetchCurrentUserRecordOperation
    let _: W<CKFetchRecordsOperation, [CKRecord.ID]?> = \.recordIDs
    let _: W<CKFetchRecordsOperation, [CKRecord.FieldKey]?> = \.desiredKeys
    let _: W<CKFetchRecordsOperation, ((CKRecord.ID, Double) -> Void)?> = \.perRecordProgressBlock
    let _: W<CKFetchRecordsOperation, ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?> = \.perRecordResultBlock
    let _: W<CKFetchRecordsOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchRecordsResultBlock

    let _: () -> CKModifyRecordsOperation = CKModifyRecordsOperation.init
    let _: ([CKRecord]?, [CKRecord.ID]?) -> CKModifyRecordsOperation = CKModifyRecordsOperation.init(recordsToSave:recordIDsToDelete:)
    let _: W<CKModifyRecordsOperation, [CKRecord]?> = \.recordsToSave
    let _: W<CKModifyRecordsOperation, [CKRecord.ID]?> = \.recordIDsToDelete
    let _: W<CKModifyRecordsOperation, CKModifyRecordsOperation.RecordSavePolicy> = \.savePolicy
    let _: W<CKModifyRecordsOperation, Data?> = \.clientChangeTokenData
    let _: W<CKModifyRecordsOperation, Bool> = \.isAtomic
    let _: W<CKModifyRecordsOperation, ((CKRecord, Double) -> Void)?> = \.perRecordProgressBlock
    let _: W<CKModifyRecordsOperation, ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?> = \.perRecordSaveBlock
    let _: W<CKModifyRecordsOperation, ((CKRecord.ID, Result<Void, any Error>) -> Void)?> = \.perRecordDeleteBlock
    let _: W<CKModifyRecordsOperation, ((Result<Void, any Error>) -> Void)?> = \.modifyRecordsResultBlock
    let _: [CKModifyRecordsOperation.RecordSavePolicy] = [.ifServerRecordUnchanged, .changedKeys, .allKeys]

    // Queries.
    let _: (CKRecord.RecordType, NSPredicate) -> CKQuery = CKQuery.init(recordType:predicate:)
    let _: (NSCoder) -> CKQuery? = CKQuery.init(coder:)
    let _: KeyPath<CKQuery, CKRecord.RecordType> = \CKQuery.recordType
    let _: KeyPath<CKQuery, NSPredicate> = \CKQuery.predicate
    let _: W<CKQuery, [NSSortDescriptor]?> = \CKQuery.sortDescriptors
    let _: () -> CKQueryOperation = CKQueryOperation.init
    let _: (CKQuery) -> CKQueryOperation = CKQueryOperation.init(query:)
    let _: (CKQueryOperation.Cursor) -> CKQueryOperation = CKQueryOperation.init(cursor:)
    let _: Int = CKQueryOperation.maximumResults
    let _: W<CKQueryOperation, CKQuery?> = \.query
    let _: W<CKQueryOperation, CKQueryOperation.Cursor?> = \.cursor
    let _: W<CKQueryOperation, CKRecordZone.ID?> = \.zoneID
    let _: W<CKQueryOperation, Int> = \.resultsLimit
    let _: W<CKQueryOperation, [CKRecord.FieldKey]?> = \.desiredKeys
    let _: W<CKQueryOperation, ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?> = \.recordMatchedBlock
    let _: W<CKQueryOperation, ((Result<CKQueryOperation.Cursor?, any Error>) -> Void)?> = \.queryResultBlock

    // Changes.
    let _: (CKServerChangeToken?) -> CKFetchDatabaseChangesOperation = CKFetchDatabaseChangesOperation.init(previousServerChangeToken:)
    let _: W<CKFetchDatabaseChangesOperation, CKServerChangeToken?> = \.previousServerChangeToken
    let _: W<CKFetchDatabaseChangesOperation, Int> = \.resultsLimit
    let _: W<CKFetchDatabaseChangesOperation, Bool> = \.fetchAllChanges
    let _: W<CKFetchDatabaseChangesOperation, ((CKRecordZone.ID) -> Void)?> = \.recordZoneWithIDChangedBlock
    let _: W<CKFetchDatabaseChangesOperation, ((CKRecordZone.ID) -> Void)?> = \.recordZoneWithIDWasDeletedBlock
    let _: W<CKFetchDatabaseChangesOperation, ((CKRecordZone.ID) -> Void)?> = \.recordZoneWithIDWasPurgedBlock
    let _: W<CKFetchDatabaseChangesOperation, ((CKRecordZone.ID) -> Void)?> = \.recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock
    let _: W<CKFetchDatabaseChangesOperation, ((CKServerChangeToken) -> Void)?> = \.changeTokenUpdatedBlock
    let _: W<CKFetchDatabaseChangesOperation, ((Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?>
        = \.fetchDatabaseChangesResultBlock

    typealias ZoneConfiguration = CKFetchRecordZoneChangesOperation.ZoneConfiguration
    let _: () -> CKFetchRecordZoneChangesOperation = CKFetchRecordZoneChangesOperation.init
    let _: ([CKRecordZone.ID], [CKRecordZone.ID: ZoneConfiguration]?) -> CKFetchRecordZoneChangesOperation
        = CKFetchRecordZoneChangesOperation.init(recordZoneIDs:configurationsByRecordZoneID:)
    let _: W<CKFetchRecordZoneChangesOperation, [CKRecordZone.ID]?> = \.recordZoneIDs
    let _: W<CKFetchRecordZoneChangesOperation, [CKRecordZone.ID: ZoneConfiguration]?> = \.configurationsByRecordZoneID
    let _: W<CKFetchRecordZoneChangesOperation, Bool> = \.fetchAllChanges
    let _: W<CKFetchRecordZoneChangesOperation, ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?> = \.recordWasChangedBlock
    let _: W<CKFetchRecordZoneChangesOperation, ((CKRecord.ID, CKRecord.RecordType) -> Void)?> = \.recordWithIDWasDeletedBlock
    let _: W<CKFetchRecordZoneChangesOperation, ((CKRecordZone.ID, CKServerChangeToken?, Data?) -> Void)?> = \.recordZoneChangeTokensUpdatedBlock
    let _: W<CKFetchRecordZoneChangesOperation,
             ((CKRecordZone.ID, Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>) -> Void)?>
        = \.recordZoneFetchResultBlock
    let _: W<CKFetchRecordZoneChangesOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchRecordZoneChangesResultBlock
    let _: (CKServerChangeToken?, Int, [CKRecord.FieldKey]?) -> ZoneConfiguration = ZoneConfiguration.init(previousServerChangeToken:resultsLimit:desiredKeys:)
    let _: W<ZoneConfiguration, CKServerChangeToken?> = \.previousServerChangeToken
    let _: W<ZoneConfiguration, Int> = \.resultsLimit
    let _: W<ZoneConfiguration, [CKRecord.FieldKey]?> = \.desiredKeys

    // Zones.
    let _: ([CKRecordZone.ID]) -> CKFetchRecordZonesOperation = CKFetchRecordZonesOperation.init(recordZoneIDs:)
    let _: () -> CKFetchRecordZonesOperation = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation
    let _: W<CKFetchRecordZonesOperation, [CKRecordZone.ID]?> = \.recordZoneIDs
    let _: W<CKFetchRecordZonesOperation, ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?> = \.perRecordZoneResultBlock
    let _: W<CKFetchRecordZonesOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchRecordZonesResultBlock
    let _: ([CKRecordZone]?, [CKRecordZone.ID]?) -> CKModifyRecordZonesOperation = CKModifyRecordZonesOperation.init(recordZonesToSave:recordZoneIDsToDelete:)
    let _: W<CKModifyRecordZonesOperation, [CKRecordZone]?> = \.recordZonesToSave
    let _: W<CKModifyRecordZonesOperation, [CKRecordZone.ID]?> = \.recordZoneIDsToDelete
    let _: W<CKModifyRecordZonesOperation, ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?> = \.perRecordZoneSaveBlock
    let _: W<CKModifyRecordZonesOperation, ((CKRecordZone.ID, Result<Void, any Error>) -> Void)?> = \.perRecordZoneDeleteBlock
    let _: W<CKModifyRecordZonesOperation, ((Result<Void, any Error>) -> Void)?> = \.modifyRecordZonesResultBlock

    // Subscriptions.
    let _: ([CKSubscription.ID]) -> CKFetchSubscriptionsOperation = CKFetchSubscriptionsOperation.init(subscriptionIDs:)
    let _: () -> CKFetchSubscriptionsOperation = CKFetchSubscriptionsOperation.fetchAllSubscriptionsOperation
    let _: W<CKFetchSubscriptionsOperation, [CKSubscription.ID]?> = \.subscriptionIDs
    let _: W<CKFetchSubscriptionsOperation, ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?> = \.perSubscriptionResultBlock
    let _: W<CKFetchSubscriptionsOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchSubscriptionsResultBlock
    let _: ([CKSubscription]?, [CKSubscription.ID]?) -> CKModifySubscriptionsOperation
        = CKModifySubscriptionsOperation.init(subscriptionsToSave:subscriptionIDsToDelete:)
    let _: W<CKModifySubscriptionsOperation, [CKSubscription]?> = \.subscriptionsToSave
    let _: W<CKModifySubscriptionsOperation, [CKSubscription.ID]?> = \.subscriptionIDsToDelete
    let _: W<CKModifySubscriptionsOperation, ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?> = \.perSubscriptionSaveBlock
    let _: W<CKModifySubscriptionsOperation, ((CKSubscription.ID, Result<Void, any Error>) -> Void)?> = \.perSubscriptionDeleteBlock
    let _: W<CKModifySubscriptionsOperation, ((Result<Void, any Error>) -> Void)?> = \.modifySubscriptionsResultBlock

    // Shares.
    let _: ([URL]) -> CKFetchShareMetadataOperation = CKFetchShareMetadataOperation.init(shareURLs:)
    let _: W<CKFetchShareMetadataOperation, [URL]?> = \.shareURLs
    let _: W<CKFetchShareMetadataOperation, Bool> = \.shouldFetchRootRecord
    let _: W<CKFetchShareMetadataOperation, [CKRecord.FieldKey]?> = \.rootRecordDesiredKeys
    let _: W<CKFetchShareMetadataOperation, ((URL, Result<CKShare.Metadata, any Error>) -> Void)?> = \.perShareMetadataResultBlock
    let _: W<CKFetchShareMetadataOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchShareMetadataResultBlock
    let _: ([CKShare.Metadata]) -> CKAcceptSharesOperation = CKAcceptSharesOperation.init(shareMetadatas:)
    let _: W<CKAcceptSharesOperation, [CKShare.Metadata]?> = \.shareMetadatas
    let _: W<CKAcceptSharesOperation, ((CKShare.Metadata, Result<CKShare, any Error>) -> Void)?> = \.perShareResultBlock
    let _: W<CKAcceptSharesOperation, ((Result<Void, any Error>) -> Void)?> = \.acceptSharesResultBlock
    let _: ([CKUserIdentity.LookupInfo]) -> CKFetchShareParticipantsOperation = CKFetchShareParticipantsOperation.init(userIdentityLookupInfos:)
    let _: W<CKFetchShareParticipantsOperation, [CKUserIdentity.LookupInfo]?> = \.userIdentityLookupInfos
    let _: W<CKFetchShareParticipantsOperation, ((CKUserIdentity.LookupInfo, Result<CKShare.Participant, any Error>) -> Void)?>
        = \.perShareParticipantResultBlock
    let _: W<CKFetchShareParticipantsOperation, ((Result<Void, any Error>) -> Void)?> = \.fetchShareParticipantsResultBlock

    // Web auth tokens.
    let _: (String) -> CKFetchWebAuthTokenOperation = CKFetchWebAuthTokenOperation.init(apiToken:)
    let _: W<CKFetchWebAuthTokenOperation, String?> = \.apiToken
    let _: W<CKFetchWebAuthTokenOperation, ((Result<String, any Error>) -> Void)?> = \.fetchWebAuthTokenResultBlock
}
