import StratusKit

/// `CKDatabase` as Apple declares it for iOS 17 / macOS 14: the async forms, then the completion-handler forms.
func ckDatabaseConformance() {
    typealias RecordResults = [CKRecord.ID: Result<CKRecord, any Error>]
    typealias Modified = (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>])
    typealias Matches = (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?)
    typealias DatabaseChanges = (modifications: [CKDatabase.DatabaseChange.Modification], deletions: [CKDatabase.DatabaseChange.Deletion],
                                 changeToken: CKServerChangeToken, moreComing: Bool)
    typealias ZoneChanges = (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>],
                             deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)
    typealias ZonesModified = (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>])
    typealias SubscriptionsModified = (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>],
                                       deleteResults: [CKSubscription.ID: Result<Void, any Error>])

    let _: KeyPath<CKDatabase, CKDatabase.Scope> = \CKDatabase.databaseScope
    let _: [CKDatabase.Scope] = [.public, .private, .shared]
    let _: (CKDatabase) -> (CKDatabaseOperation) -> Void = CKDatabase.add(_:)

    // Records.
    let _: (CKDatabase) -> (CKRecord.ID) async throws -> CKRecord = CKDatabase.record(for:)
    let _: (CKDatabase) -> ([CKRecord.ID], [CKRecord.FieldKey]?) async throws -> RecordResults = CKDatabase.records(for:desiredKeys:)
    let _: (CKDatabase) -> (CKRecord) async throws -> CKRecord = CKDatabase.save(_:)
    let _: (CKDatabase) -> (CKRecord.ID) async throws -> CKRecord.ID = CKDatabase.deleteRecord(withID:)
    let _: (CKDatabase) -> ([CKRecord], [CKRecord.ID], CKModifyRecordsOperation.RecordSavePolicy, Bool) async throws -> Modified
        = CKDatabase.modifyRecords(saving:deleting:savePolicy:atomically:)
    let _: (CKDatabase) -> (CKQuery, CKRecordZone.ID?, [CKRecord.FieldKey]?, Int) async throws -> Matches
        = CKDatabase.records(matching:inZoneWith:desiredKeys:resultsLimit:)
    let _: (CKDatabase) -> (CKQueryOperation.Cursor, [CKRecord.FieldKey]?, Int) async throws -> Matches
        = CKDatabase.records(continuingMatchFrom:desiredKeys:resultsLimit:)

    // Changes.
    let _: (CKDatabase) -> (CKServerChangeToken?, Int?) async throws -> DatabaseChanges = CKDatabase.databaseChanges(since:resultsLimit:)
    let _: (CKDatabase) -> (CKRecordZone.ID, CKServerChangeToken?, [CKRecord.FieldKey]?, Int?) async throws -> ZoneChanges
        = CKDatabase.recordZoneChanges(inZoneWith:since:desiredKeys:resultsLimit:)

    // Zones.
    let _: (CKDatabase) -> (CKRecordZone.ID) async throws -> CKRecordZone = CKDatabase.recordZone(for:)
    let _: (CKDatabase) -> ([CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] = CKDatabase.recordZones(for:)
    let _: (CKDatabase) -> () async throws -> [CKRecordZone] = CKDatabase.allRecordZones
    let _: (CKDatabase) -> (CKRecordZone) async throws -> CKRecordZone = CKDatabase.save(_:)
    let _: (CKDatabase) -> (CKRecordZone.ID) async throws -> CKRecordZone.ID = CKDatabase.deleteRecordZone(withID:)
    let _: (CKDatabase) -> ([CKRecordZone], [CKRecordZone.ID]) async throws -> ZonesModified = CKDatabase.modifyRecordZones(saving:deleting:)

    // Subscriptions.
    let _: (CKDatabase) -> (CKSubscription.ID) async throws -> CKSubscription = CKDatabase.subscription(for:)
    let _: (CKDatabase) -> ([CKSubscription.ID]) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] = CKDatabase.subscriptions(for:)
    let _: (CKDatabase) -> () async throws -> [CKSubscription] = CKDatabase.allSubscriptions
    let _: (CKDatabase) -> (CKSubscription) async throws -> CKSubscription = CKDatabase.save(_:)
    let _: (CKDatabase) -> (CKSubscription.ID) async throws -> CKSubscription.ID = CKDatabase.deleteSubscription(withID:)
    let _: (CKDatabase) -> ([CKSubscription], [CKSubscription.ID]) async throws -> SubscriptionsModified = CKDatabase.modifySubscriptions(saving:deleting:)

    // The completion-handler forms.
    let _: (CKDatabase) -> (CKRecord.ID, @escaping @Sendable (CKRecord?, (any Error)?) -> Void) -> Void = CKDatabase.fetch(withRecordID:completionHandler:)
    let _: (CKDatabase) -> ([CKRecord.ID], [CKRecord.FieldKey]?, @escaping @Sendable (Result<RecordResults, any Error>) -> Void) -> Void
        = CKDatabase.fetch(withRecordIDs:desiredKeys:completionHandler:)
    let _: (CKDatabase) -> (CKRecord, @escaping @Sendable (CKRecord?, (any Error)?) -> Void) -> Void = CKDatabase.save(_:completionHandler:)
    let _: (CKDatabase) -> (CKRecord.ID, @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) -> Void = CKDatabase.delete(withRecordID:completionHandler:)
    let _: (CKDatabase) -> ([CKRecord], [CKRecord.ID], CKModifyRecordsOperation.RecordSavePolicy, Bool,
                           @escaping @Sendable (Result<Modified, any Error>) -> Void) -> Void
        = CKDatabase.modifyRecords(saving:deleting:savePolicy:atomically:completionHandler:)
    let _: (CKDatabase) -> (CKQuery, CKRecordZone.ID?, [CKRecord.FieldKey]?, Int, @escaping @Sendable (Result<Matches, any Error>) -> Void) -> Void
        = CKDatabase.fetch(withQuery:inZoneWith:desiredKeys:resultsLimit:completionHandler:)
    let _: (CKDatabase) -> (CKQueryOperation.Cursor, [CKRecord.FieldKey]?, Int, @escaping @Sendable (Result<Matches, any Error>) -> Void) -> Void
        = CKDatabase.fetch(withCursor:desiredKeys:resultsLimit:completionHandler:)
    let _: (CKDatabase) -> (CKServerChangeToken?, Int?, @escaping @Sendable (Result<DatabaseChanges, any Error>) -> Void) -> Void
        = CKDatabase.fetchDatabaseChanges(since:resultsLimit:completionHandler:)
    let _: (CKDatabase) -> (CKRecordZone.ID, CKServerChangeToken?, [CKRecord.FieldKey]?, Int?, @escaping @Sendable (Result<ZoneChanges, any Error>) -> Void) -> Void
        = CKDatabase.fetchRecordZoneChanges(inZoneWith:since:desiredKeys:resultsLimit:completionHandler:)
    let _: (CKDatabase) -> (@escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) -> Void = CKDatabase.fetchAllRecordZones(completionHandler:)
    let _: (CKDatabase) -> (CKRecordZone.ID, @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) -> Void = CKDatabase.fetch(withRecordZoneID:completionHandler:)
    let _: (CKDatabase) -> ([CKRecordZone.ID], @escaping @Sendable (Result<[CKRecordZone.ID: Result<CKRecordZone, any Error>], any Error>) -> Void) -> Void
        = CKDatabase.fetch(withRecordZoneIDs:completionHandler:)
    let _: (CKDatabase) -> (CKRecordZone, @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) -> Void = CKDatabase.save(_:completionHandler:)
    let _: (CKDatabase) -> (CKRecordZone.ID, @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void) -> Void = CKDatabase.delete(withRecordZoneID:completionHandler:)
    let _: (CKDatabase) -> ([CKRecordZone], [CKRecordZone.ID], @escaping @Sendable (Result<ZonesModified, any Error>) -> Void) -> Void
        = CKDatabase.modifyRecordZones(saving:deleting:completionHandler:)
    let _: (CKDatabase) -> (@escaping @Sendable ([CKSubscription]?, (any Error)?) -> Void) -> Void = CKDatabase.fetchAllSubscriptions(completionHandler:)
    let _: (CKDatabase) -> (CKSubscription.ID, @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) -> Void
        = CKDatabase.fetch(withSubscriptionID:completionHandler:)
    let _: (CKDatabase) -> ([CKSubscription.ID], @escaping @Sendable (Result<[CKSubscription.ID: Result<CKSubscription, any Error>], any Error>) -> Void) -> Void
        = CKDatabase.fetch(withSubscriptionIDs:completionHandler:)
    let _: (CKDatabase) -> (CKSubscription, @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) -> Void = CKDatabase.save(_:completionHandler:)
    let _: (CKDatabase) -> (CKSubscription.ID, @escaping @Sendable (CKSubscription.ID?, (any Error)?) -> Void) -> Void
        = CKDatabase.delete(withSubscriptionID:completionHandler:)
    let _: (CKDatabase) -> ([CKSubscription], [CKSubscription.ID], @escaping @Sendable (Result<SubscriptionsModified, any Error>) -> Void) -> Void
        = CKDatabase.modifySubscriptions(saving:deleting:completionHandler:)

    // The change results.
    let _: KeyPath<CKDatabase.RecordZoneChange.Modification, CKRecord> = \.record
    let _: KeyPath<CKDatabase.RecordZoneChange.Deletion, CKRecord.ID> = \.recordID
    let _: KeyPath<CKDatabase.RecordZoneChange.Deletion, CKRecord.RecordType> = \.recordType
    let _: KeyPath<CKDatabase.DatabaseChange.Modification, CKRecordZone.ID> = \.zoneID
    let _: KeyPath<CKDatabase.DatabaseChange.Deletion, CKRecordZone.ID> = \.zoneID
    let _: KeyPath<CKDatabase.DatabaseChange.Deletion, CKDatabase.DatabaseChange.Deletion.Reason> = \.reason
    let _: [CKDatabase.DatabaseChange.Deletion.Reason] = [.deleted, .purged, .encryptedDataReset]
}
