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

            /// Mirrors `CKSyncEngine.FetchChangesOptions.Scope.contains(_:)`: whether the scope includes the zone.
            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let ids): ids.contains(zoneID)
                case .allExcluding(let ids): !ids.contains(zoneID)
                }
            }
        }

        /// Mirrors `CKSyncEngine.FetchChangesOptions.scope`.
        public var scope: Scope
        /// Mirrors `CKSyncEngine.FetchChangesOptions.operationGroup`.
        public var operationGroup: CKOperationGroup
        /// Mirrors `CKSyncEngine.FetchChangesOptions.prioritizedZoneIDs`: these zones are fetched first.
        public var prioritizedZoneIDs: [CKRecordZone.ID] = []
        /// Mirrors `CKSyncEngine.FetchChangesOptions(scope:operationGroup:)`: nil makes a group of the engine's own.
        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }
    }

    /// Mirrors `CKSyncEngine.SendChangesOptions`: which pending changes to send (all by default).
    public struct SendChangesOptions: Sendable {
        /// Mirrors `CKSyncEngine.SendChangesOptions.Scope`.
        public enum Scope: Sendable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])

            /// Mirrors `CKSyncEngine.SendChangesOptions.Scope.contains(_:)` for a record: whether its change is within
            /// the scope.
            public func contains(_ recordID: CKRecord.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let zones): zones.contains(recordID.zoneID)
                case .allExcluding(let zones): !zones.contains(recordID.zoneID)
                case .recordIDs(let ids): ids.contains(recordID)
                }
            }

            /// Mirrors `CKSyncEngine.SendChangesOptions.Scope.contains(_:)` for a zone: whether changes in it may be
            /// sent.
            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let zones): zones.contains(zoneID)
                case .allExcluding(let zones): !zones.contains(zoneID)
                case .recordIDs(let ids): ids.contains { $0.zoneID == zoneID }
                }
            }

            /// Mirrors `CKSyncEngine.SendChangesOptions.Scope.contains(_:)` for a pending change: what
            /// `nextRecordZoneChangeBatch` implementations filter with (`scope.contains($0)`).
            public func contains(_ pendingChange: CKSyncEngine.PendingRecordZoneChange) -> Bool {
                contains(pendingChange.recordID)
            }
        }

        /// Mirrors `CKSyncEngine.SendChangesOptions.scope`.
        public var scope: Scope
        /// Mirrors `CKSyncEngine.SendChangesOptions.operationGroup`.
        public var operationGroup: CKOperationGroup
        /// Mirrors `CKSyncEngine.SendChangesOptions(scope:operationGroup:)`: nil makes a group of the engine's own.
        public init(scope: Scope = .all, operationGroup: CKOperationGroup? = nil) {
            self.scope = scope
            self.operationGroup = operationGroup ?? CKOperationGroup()
        }
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
