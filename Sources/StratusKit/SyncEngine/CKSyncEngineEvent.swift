import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.Event`: what the engine tells its delegate, one event at a time, in order.
    public enum Event: Sendable, CustomStringConvertible {
        case stateUpdate(StateUpdate)
        case accountChange(AccountChange)
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        case sentDatabaseChanges(SentDatabaseChanges)
        case sentRecordZoneChanges(SentRecordZoneChanges)
        case willFetchChanges(WillFetchChanges)
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        case didFetchChanges(DidFetchChanges)
        case willSendChanges(WillSendChanges)
        case didSendChanges(DidSendChanges)

        /// A short form for logs.
        public var description: String {
            switch self {
            case .stateUpdate: "stateUpdate"
            case .accountChange: "accountChange"
            case .fetchedDatabaseChanges(let e): "fetchedDatabaseChanges(\(e.modifications.count) changed, \(e.deletions.count) deleted)"
            case .fetchedRecordZoneChanges(let e): "fetchedRecordZoneChanges(\(e.modifications.count) changed, \(e.deletions.count) deleted)"
            case .sentDatabaseChanges: "sentDatabaseChanges"
            case .sentRecordZoneChanges(let e): "sentRecordZoneChanges(\(e.savedRecords.count) saved, \(e.failedRecordSaves.count) failed)"
            case .willFetchChanges: "willFetchChanges"
            case .willFetchRecordZoneChanges(let e): "willFetchRecordZoneChanges(\(e.zoneID.zoneName))"
            case .didFetchRecordZoneChanges(let e): "didFetchRecordZoneChanges(\(e.zoneID.zoneName))"
            case .didFetchChanges: "didFetchChanges"
            case .willSendChanges: "willSendChanges"
            case .didSendChanges: "didSendChanges"
            }
        }

        /// Mirrors `StateUpdate`: persist `stateSerialization` beside the app's data.
        public struct StateUpdate: Sendable { public let stateSerialization: State.Serialization }
        /// Mirrors `AccountChange`.
        public struct AccountChange: Sendable {
            /// Mirrors `CKSyncEngine.Event.AccountChange.ChangeType`.
            public enum ChangeType: Sendable { case signIn(currentUser: CKRecord.ID), signOut(previousUser: CKRecord.ID), switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID) }
            /// Mirrors `CKSyncEngine.Event.AccountChange.changeType`.
            public let changeType: ChangeType
        }
        /// Mirrors `FetchedDatabaseChanges`.
        public struct FetchedDatabaseChanges: Sendable {
            /// Mirrors `CKSyncEngine.Event.FetchedDatabaseChanges.modifications`.
            public let modifications: [CKDatabase.DatabaseChange.Modification]
            /// Mirrors `CKSyncEngine.Event.FetchedDatabaseChanges.deletions`.
            public let deletions: [CKDatabase.DatabaseChange.Deletion]
        }
        /// Mirrors `FetchedRecordZoneChanges`.
        public struct FetchedRecordZoneChanges: Sendable {
            /// Mirrors `CKSyncEngine.Event.FetchedRecordZoneChanges.modifications`.
            public let modifications: [CKDatabase.RecordZoneChange.Modification]
            /// Mirrors `CKSyncEngine.Event.FetchedRecordZoneChanges.deletions`.
            public let deletions: [CKDatabase.RecordZoneChange.Deletion]
        }
        /// Mirrors `SentDatabaseChanges`.
        public struct SentDatabaseChanges: @unchecked Sendable {
            /// Mirrors `CKSyncEngine.Event.SentDatabaseChanges.FailedZoneSave`.
            public struct FailedZoneSave: @unchecked Sendable { public let zone: CKRecordZone; public let error: CKError }
            /// Mirrors `CKSyncEngine.Event.SentDatabaseChanges.savedZones`.
            public let savedZones: [CKRecordZone]
            /// Mirrors `CKSyncEngine.Event.SentDatabaseChanges.failedZoneSaves`.
            public let failedZoneSaves: [FailedZoneSave]
            /// Mirrors `CKSyncEngine.Event.SentDatabaseChanges.deletedZoneIDs`.
            public let deletedZoneIDs: [CKRecordZone.ID]
            /// Mirrors `CKSyncEngine.Event.SentDatabaseChanges.failedZoneDeletes`.
            public let failedZoneDeletes: [CKRecordZone.ID: CKError]
        }
        /// Mirrors `SentRecordZoneChanges`: saved records carry their new change tags; a failed save carries the
        /// record the app offered and CloudKit's error (`.serverRecordChanged` with the server's record to merge).
        public struct SentRecordZoneChanges: @unchecked Sendable {
            /// Mirrors `CKSyncEngine.Event.SentRecordZoneChanges.FailedRecordSave`.
            public struct FailedRecordSave: @unchecked Sendable { public let record: CKRecord; public let error: CKError }
            /// Mirrors `CKSyncEngine.Event.SentRecordZoneChanges.savedRecords`.
            public let savedRecords: [CKRecord]
            /// Mirrors `CKSyncEngine.Event.SentRecordZoneChanges.failedRecordSaves`.
            public let failedRecordSaves: [FailedRecordSave]
            /// Mirrors `CKSyncEngine.Event.SentRecordZoneChanges.deletedRecordIDs`.
            public let deletedRecordIDs: [CKRecord.ID]
            /// Mirrors `CKSyncEngine.Event.SentRecordZoneChanges.failedRecordDeletes`.
            public let failedRecordDeletes: [CKRecord.ID: CKError]
        }
        /// Mirrors `WillFetchChanges`.
        public struct WillFetchChanges: Sendable { public let context: FetchChangesContext }
        /// Mirrors `WillFetchRecordZoneChanges`.
        public struct WillFetchRecordZoneChanges: Sendable { public let zoneID: CKRecordZone.ID }
        /// Mirrors `DidFetchRecordZoneChanges`: `error` when the zone could not be fetched.
        public struct DidFetchRecordZoneChanges: Sendable { public let zoneID: CKRecordZone.ID; public let error: CKError? }
        /// Mirrors `DidFetchChanges`.
        public struct DidFetchChanges: Sendable { public let context: FetchChangesContext }
        /// Mirrors `WillSendChanges`.
        public struct WillSendChanges: Sendable { public let context: SendChangesContext }
        /// Mirrors `DidSendChanges`.
        public struct DidSendChanges: Sendable { public let context: SendChangesContext }
    }
}
