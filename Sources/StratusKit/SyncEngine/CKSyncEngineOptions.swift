import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.SyncReason`.
    public enum SyncReason: Sendable {
        case scheduled, manual
    }

    /// Mirrors `CKSyncEngine.FetchChangesOptions`: which zones to fetch (all by default).
    public struct FetchChangesOptions: Sendable {
        /// Mirrors `CKSyncEngine.FetchChangesOptions.Scope`.
        public enum Scope: Sendable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])

            func contains(_ zone: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let ids): ids.contains(zone)
                case .allExcluding(let ids): !ids.contains(zone)
                }
            }
        }

        /// Mirrors `CKSyncEngine.FetchChangesOptions.scope`.
        public var scope: Scope
        /// Mirrors `CKSyncEngine.FetchChangesOptions(scope:)`.
        public init(scope: Scope = .all) { self.scope = scope }
    }

    /// Mirrors `CKSyncEngine.SendChangesOptions`: which pending changes to send (all by default).
    public struct SendChangesOptions: Sendable {
        /// Mirrors `CKSyncEngine.SendChangesOptions.Scope`.
        public enum Scope: Sendable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])

            /// Whether a pending change of this record is within the scope.
            public func contains(_ id: CKRecord.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let zones): zones.contains(id.zoneID)
                case .allExcluding(let zones): !zones.contains(id.zoneID)
                case .recordIDs(let ids): ids.contains(id)
                }
            }
        }

        /// Mirrors `CKSyncEngine.SendChangesOptions.scope`.
        public var scope: Scope
        /// Mirrors `CKSyncEngine.SendChangesOptions(scope:)`.
        public init(scope: Scope = .all) { self.scope = scope }
    }

    /// Mirrors `CKSyncEngine.FetchChangesContext`.
    public struct FetchChangesContext: Sendable {
        /// Mirrors `CKSyncEngine.FetchChangesContext.reason`.
        public let reason: SyncReason
        /// Mirrors `CKSyncEngine.FetchChangesContext.options`.
        public let options: FetchChangesOptions
    }

    /// Mirrors `CKSyncEngine.SendChangesContext`.
    public struct SendChangesContext: Sendable {
        /// Mirrors `CKSyncEngine.SendChangesContext.reason`.
        public let reason: SyncReason
        /// Mirrors `CKSyncEngine.SendChangesContext.options`.
        public let options: SendChangesOptions
    }
}
