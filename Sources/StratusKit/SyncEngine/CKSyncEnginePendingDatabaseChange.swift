import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.PendingDatabaseChange`: a zone to create or delete.
    public enum PendingDatabaseChange: Hashable, Sendable {
        case saveZone(CKRecordZone)
        case deleteZone(CKRecordZone.ID)

        /// Mirrors `CKSyncEngine.PendingDatabaseChange.zoneID`.
        public var zoneID: CKRecordZone.ID {
            switch self {
            case .saveZone(let z): z.zoneID
            case .deleteZone(let id): id
            }
        }
    }
}
