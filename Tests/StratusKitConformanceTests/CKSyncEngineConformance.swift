import StratusKit

/// `CKSyncEngine` and all its nested types, as Apple declares them for iOS 17 / macOS 14.
func ckSyncEngineConformance() {
    typealias Engine = CKSyncEngine
    let _: (Engine.Configuration) -> Engine = Engine.init(_:)
    let _: KeyPath<Engine, CKDatabase> = \Engine.database
    let _: KeyPath<Engine, Engine.State> = \Engine.state
    let _: (Engine) -> (Engine.FetchChangesOptions) async throws -> Void = Engine.fetchChanges(_:)
    let _: (Engine) -> (Engine.SendChangesOptions) async throws -> Void = Engine.sendChanges(_:)
    let _: (Engine) -> () async -> Void = Engine.cancelOperations

    // Configuration.
    let _: (CKDatabase, Engine.State.Serialization?, any CKSyncEngineDelegate) -> Engine.Configuration
        = Engine.Configuration.init(database:stateSerialization:delegate:)
    let _: WritableKeyPath<Engine.Configuration, CKDatabase> = \.database
    let _: WritableKeyPath<Engine.Configuration, Engine.State.Serialization?> = \.stateSerialization
    let _: WritableKeyPath<Engine.Configuration, (any CKSyncEngineDelegate)?> = \.delegate
    let _: WritableKeyPath<Engine.Configuration, Bool> = \.automaticallySync
    let _: WritableKeyPath<Engine.Configuration, CKSubscription.ID?> = \.subscriptionID

    // State.
    let _: KeyPath<Engine.State, [Engine.PendingRecordZoneChange]> = \.pendingRecordZoneChanges
    let _: KeyPath<Engine.State, [Engine.PendingDatabaseChange]> = \.pendingDatabaseChanges
    let _: ReferenceWritableKeyPath<Engine.State, Bool> = \.hasPendingUntrackedChanges
    let _: KeyPath<Engine.State, [CKRecordZone.ID]> = \.zoneIDsWithUnfetchedServerChanges
    let _: (Engine.State) -> ([Engine.PendingRecordZoneChange]) -> Void = Engine.State.add(pendingRecordZoneChanges:)
    let _: (Engine.State) -> ([Engine.PendingRecordZoneChange]) -> Void = Engine.State.remove(pendingRecordZoneChanges:)
    let _: (Engine.State) -> ([Engine.PendingDatabaseChange]) -> Void = Engine.State.add(pendingDatabaseChanges:)
    let _: (Engine.State) -> ([Engine.PendingDatabaseChange]) -> Void = Engine.State.remove(pendingDatabaseChanges:)
    func codableAndSendable<T: Codable & Sendable>(_: T.Type) {}
    codableAndSendable(Engine.State.Serialization.self)

    // Pending changes.
    func hashableAndSendable<T: Hashable & Sendable>(_: T.Type) {}
    hashableAndSendable(Engine.PendingRecordZoneChange.self)
    hashableAndSendable(Engine.PendingDatabaseChange.self)
    let _: (CKRecord.ID) -> Engine.PendingRecordZoneChange = Engine.PendingRecordZoneChange.saveRecord
    let _: (CKRecord.ID) -> Engine.PendingRecordZoneChange = Engine.PendingRecordZoneChange.deleteRecord
    let _: (CKRecordZone) -> Engine.PendingDatabaseChange = Engine.PendingDatabaseChange.saveZone
    let _: (CKRecordZone.ID) -> Engine.PendingDatabaseChange = Engine.PendingDatabaseChange.deleteZone
    let _: KeyPath<Engine.PendingDatabaseChange, CKRecordZone.ID> = \.zoneID

    // Batches.
    let _: ([Engine.PendingRecordZoneChange], @escaping @Sendable (CKRecord.ID) async -> CKRecord?) async -> Engine.RecordZoneChangeBatch?
        = Engine.RecordZoneChangeBatch.init(pendingChanges:recordProvider:)
    let _: ([CKRecord], [CKRecord.ID], Bool) -> Engine.RecordZoneChangeBatch = Engine.RecordZoneChangeBatch.init(recordsToSave:recordIDsToDelete:atomicByZone:)
    let _: WritableKeyPath<Engine.RecordZoneChangeBatch, [CKRecord]> = \.recordsToSave
    let _: WritableKeyPath<Engine.RecordZoneChangeBatch, [CKRecord.ID]> = \.recordIDsToDelete
    let _: WritableKeyPath<Engine.RecordZoneChangeBatch, Bool> = \.atomicByZone

    // Options and contexts.
    let _: (Engine.FetchChangesOptions.Scope, CKOperationGroup) -> Engine.FetchChangesOptions = Engine.FetchChangesOptions.init(scope:operationGroup:)
    let _: WritableKeyPath<Engine.FetchChangesOptions, Engine.FetchChangesOptions.Scope> = \.scope
    let _: WritableKeyPath<Engine.FetchChangesOptions, CKOperationGroup> = \.operationGroup
    let _: WritableKeyPath<Engine.FetchChangesOptions, [CKRecordZone.ID]> = \.prioritizedZoneIDs
    let _: [Engine.FetchChangesOptions.Scope] = [.all, .zoneIDs([]), .allExcluding([])]
    let _: (Engine.FetchChangesOptions.Scope) -> (CKRecordZone.ID) -> Bool = Engine.FetchChangesOptions.Scope.contains(_:)
    let _: (Engine.SendChangesOptions.Scope, CKOperationGroup) -> Engine.SendChangesOptions = Engine.SendChangesOptions.init(scope:operationGroup:)
    let _: WritableKeyPath<Engine.SendChangesOptions, Engine.SendChangesOptions.Scope> = \.scope
    let _: WritableKeyPath<Engine.SendChangesOptions, CKOperationGroup> = \.operationGroup
    let _: [Engine.SendChangesOptions.Scope] = [.all, .zoneIDs([]), .allExcluding([]), .recordIDs([])]
    let _: (Engine.SendChangesOptions.Scope) -> (CKRecordZone.ID) -> Bool = Engine.SendChangesOptions.Scope.contains(_:)
    let _: (Engine.SendChangesOptions.Scope) -> (CKRecord.ID) -> Bool = Engine.SendChangesOptions.Scope.contains(_:)
    let _: (Engine.SendChangesOptions.Scope) -> (Engine.PendingRecordZoneChange) -> Bool = Engine.SendChangesOptions.Scope.contains(_:)
    let _: KeyPath<Engine.FetchChangesContext, Engine.SyncReason> = \.reason
    let _: KeyPath<Engine.FetchChangesContext, Engine.FetchChangesOptions> = \.options
    let _: KeyPath<Engine.SendChangesContext, Engine.SyncReason> = \.reason
    let _: KeyPath<Engine.SendChangesContext, Engine.SendChangesOptions> = \.options
    let _: [Engine.SyncReason] = [.scheduled, .manual]

    // Events.
    let _: (Engine.Event.StateUpdate) -> Engine.Event = Engine.Event.stateUpdate
    let _: (Engine.Event.AccountChange) -> Engine.Event = Engine.Event.accountChange
    let _: (Engine.Event.FetchedDatabaseChanges) -> Engine.Event = Engine.Event.fetchedDatabaseChanges
    let _: (Engine.Event.FetchedRecordZoneChanges) -> Engine.Event = Engine.Event.fetchedRecordZoneChanges
    let _: (Engine.Event.SentDatabaseChanges) -> Engine.Event = Engine.Event.sentDatabaseChanges
    let _: (Engine.Event.SentRecordZoneChanges) -> Engine.Event = Engine.Event.sentRecordZoneChanges
    let _: (Engine.Event.WillFetchChanges) -> Engine.Event = Engine.Event.willFetchChanges
    let _: (Engine.Event.WillFetchRecordZoneChanges) -> Engine.Event = Engine.Event.willFetchRecordZoneChanges
    let _: (Engine.Event.DidFetchRecordZoneChanges) -> Engine.Event = Engine.Event.didFetchRecordZoneChanges
    let _: (Engine.Event.DidFetchChanges) -> Engine.Event = Engine.Event.didFetchChanges
    let _: (Engine.Event.WillSendChanges) -> Engine.Event = Engine.Event.willSendChanges
    let _: (Engine.Event.DidSendChanges) -> Engine.Event = Engine.Event.didSendChanges
    let _: KeyPath<Engine.Event.StateUpdate, Engine.State.Serialization> = \.stateSerialization
    let _: KeyPath<Engine.Event.AccountChange, Engine.Event.AccountChange.ChangeType> = \.changeType
    let _: (CKRecord.ID) -> Engine.Event.AccountChange.ChangeType = Engine.Event.AccountChange.ChangeType.signIn(currentUser:)
    let _: (CKRecord.ID) -> Engine.Event.AccountChange.ChangeType = Engine.Event.AccountChange.ChangeType.signOut(previousUser:)
    let _: (CKRecord.ID, CKRecord.ID) -> Engine.Event.AccountChange.ChangeType = Engine.Event.AccountChange.ChangeType.switchAccounts(previousUser:currentUser:)
    let _: KeyPath<Engine.Event.FetchedDatabaseChanges, [CKDatabase.DatabaseChange.Modification]> = \.modifications
    let _: KeyPath<Engine.Event.FetchedDatabaseChanges, [CKDatabase.DatabaseChange.Deletion]> = \.deletions
    let _: KeyPath<Engine.Event.FetchedRecordZoneChanges, [CKDatabase.RecordZoneChange.Modification]> = \.modifications
    let _: KeyPath<Engine.Event.FetchedRecordZoneChanges, [CKDatabase.RecordZoneChange.Deletion]> = \.deletions
    let _: KeyPath<Engine.Event.SentDatabaseChanges, [CKRecordZone]> = \.savedZones
    let _: KeyPath<Engine.Event.SentDatabaseChanges, [Engine.Event.SentDatabaseChanges.FailedZoneSave]> = \.failedZoneSaves
    let _: KeyPath<Engine.Event.SentDatabaseChanges, [CKRecordZone.ID]> = \.deletedZoneIDs
    let _: KeyPath<Engine.Event.SentDatabaseChanges, [CKRecordZone.ID: CKError]> = \.failedZoneDeletes
    let _: KeyPath<Engine.Event.SentDatabaseChanges.FailedZoneSave, CKRecordZone> = \.zone
    let _: KeyPath<Engine.Event.SentDatabaseChanges.FailedZoneSave, CKError> = \.error
    let _: KeyPath<Engine.Event.SentRecordZoneChanges, [CKRecord]> = \.savedRecords
    let _: KeyPath<Engine.Event.SentRecordZoneChanges, [Engine.Event.SentRecordZoneChanges.FailedRecordSave]> = \.failedRecordSaves
    let _: KeyPath<Engine.Event.SentRecordZoneChanges, [CKRecord.ID]> = \.deletedRecordIDs
    let _: KeyPath<Engine.Event.SentRecordZoneChanges, [CKRecord.ID: CKError]> = \.failedRecordDeletes
    let _: KeyPath<Engine.Event.SentRecordZoneChanges.FailedRecordSave, CKRecord> = \.record
    let _: KeyPath<Engine.Event.SentRecordZoneChanges.FailedRecordSave, CKError> = \.error
    let _: KeyPath<Engine.Event.WillFetchChanges, Engine.FetchChangesContext> = \.context
    let _: KeyPath<Engine.Event.WillFetchRecordZoneChanges, CKRecordZone.ID> = \.zoneID
    let _: KeyPath<Engine.Event.DidFetchRecordZoneChanges, CKRecordZone.ID> = \.zoneID
    let _: KeyPath<Engine.Event.DidFetchRecordZoneChanges, CKError?> = \.error
    let _: KeyPath<Engine.Event.DidFetchChanges, Engine.FetchChangesContext> = \.context
    let _: KeyPath<Engine.Event.WillSendChanges, Engine.SendChangesContext> = \.context
    let _: KeyPath<Engine.Event.DidSendChanges, Engine.SendChangesContext> = \.context
}

/// The delegate an app writes, with only the two requirements CloudKit makes it implement.
final class MinimalSyncDelegate: CKSyncEngineDelegate {
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {}
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
}

/// And the optional one, overridden.
final class PrioritizingSyncDelegate: CKSyncEngineDelegate {
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {}
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? { nil }
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}
