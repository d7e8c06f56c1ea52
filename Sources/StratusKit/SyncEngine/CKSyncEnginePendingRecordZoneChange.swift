import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.PendingRecordZoneChange`: a record the app changed locally and the engine must send.
    public enum PendingRecordZoneChange: Hashable, Sendable {
        case saveRecord(CKRecord.ID)
        case deleteRecord(CKRecord.ID)

        /// Mirrors `CKSyncEngine.PendingRecordZoneChange.recordID`.
        public var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): id
            }
        }
    }
}
