import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.RecordZoneChangeBatch`: what one request sends, built from pending changes and the app's
    /// records. Saves and deletes of one record never travel together (the later intent is in the state already).
    public struct RecordZoneChangeBatch: Sendable {
        /// Mirrors `CKSyncEngine.RecordZoneChangeBatch.recordsToSave`.
        public var recordsToSave: [CKRecord]
        /// Mirrors `CKSyncEngine.RecordZoneChangeBatch.recordIDsToDelete`.
        public var recordIDsToDelete: [CKRecord.ID]
        /// Mirrors `atomicByZone`: each zone's part all or nothing.
        public var atomicByZone: Bool

        /// Mirrors `CKSyncEngine.RecordZoneChangeBatch(recordsToSave:recordIDsToDelete:atomicByZone:)`.
        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }

        /// Mirrors `RecordZoneChangeBatch(pendingChanges:recordProvider:)`: up to the server's batch limit of the given
        /// changes; a save whose record the provider no longer has is left out (and stays pending for the app).
        public init?(pendingChanges: [PendingRecordZoneChange],
                     recordProvider: (CKRecord.ID) async -> CKRecord?) async {
            var saves: [CKRecord] = [], deletes: [CKRecord.ID] = []
            var seen = Set<CKRecord.ID>()
            for change in pendingChanges where saves.count + deletes.count < CKSyncEngine.maximumBatchSize {
                guard seen.insert(change.recordID).inserted else { continue }
                switch change {
                case .saveRecord(let id): if let r = await recordProvider(id) { saves.append(r) }
                case .deleteRecord(let id): deletes.append(id)
                }
            }
            if saves.isEmpty && deletes.isEmpty { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes)
        }
    }
}
