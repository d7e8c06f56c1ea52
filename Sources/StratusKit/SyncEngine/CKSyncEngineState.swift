import Foundation

extension CKSyncEngine {
    /// Mirrors `CKSyncEngine.State`: the changes still to send, and (in `Serialization`) where the engine read the
    /// server's changes up to. Every change of it reaches the app as a `.stateUpdate` event to persist.
    public final class State: @unchecked Sendable {
        private let lock = NSLock()
        private var pendingRecords: [PendingRecordZoneChange] = []
        private var pendingZones: [PendingDatabaseChange] = []
        private var untracked = false
        var databaseToken: String?
        var zoneTokens: [String: String] = [:]
        /// Called (outside the lock) when pending work was added, so the engine can send it.
        var onChange: (@Sendable (_ added: Bool) -> Void)?

        init(_ s: Serialization?) {
            guard let s else { return }
            databaseToken = s.databaseToken
            zoneTokens = s.zoneTokens
            pendingRecords = s.pendingRecordZoneChanges.compactMap(\.recordChange)
            pendingZones = s.pendingDatabaseChanges.compactMap(\.databaseChange)
            untracked = s.hasPendingUntrackedChanges
        }

        /// Forgets everything: the change tokens and the pending changes (the account changed; they were the other
        /// account's).
        func reset() {
            locked {
                pendingRecords = []
                pendingZones = []
                untracked = false
                databaseToken = nil
                zoneTokens = [:]
            }
            onChange?(false)
        }

        /// Mirrors `pendingRecordZoneChanges`, in the order they were added.
        public var pendingRecordZoneChanges: [PendingRecordZoneChange] { locked { pendingRecords } }
        /// Mirrors `pendingDatabaseChanges`.
        public var pendingDatabaseChanges: [PendingDatabaseChange] { locked { pendingZones } }
        /// Mirrors `hasPendingUntrackedChanges`: the app has changes it will hand over in `nextRecordZoneChangeBatch`.
        public var hasPendingUntrackedChanges: Bool {
            get { locked { untracked } }
            set { locked { untracked = newValue }; onChange?(newValue) }
        }
        /// Mirrors `zoneIDsWithUnfetchedServerChanges` (the zones the engine has a token for but was told changed).
        public var zoneIDsWithUnfetchedServerChanges: [CKRecordZone.ID] { [] }

        /// Mirrors `add(pendingRecordZoneChanges:)`. A later change of a record replaces an earlier one: a delete after
        /// a save is only the delete, so the two are never sent together.
        public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            locked { Self.add(changes, to: &pendingRecords, by: \.recordID) }
            onChange?(true)
        }

        /// Mirrors `remove(pendingRecordZoneChanges:)`.
        public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) {
            let gone = Set(changes)
            locked { pendingRecords.removeAll { gone.contains($0) } }
            onChange?(false)
        }

        /// Mirrors `add(pendingDatabaseChanges:)`.
        public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            locked { Self.add(changes, to: &pendingZones, by: \.zoneID) }
            onChange?(true)
        }

        /// Mirrors `remove(pendingDatabaseChanges:)`.
        public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) {
            let gone = Set(changes.map(\.zoneID))
            locked { pendingZones.removeAll { gone.contains($0.zoneID) } }
            onChange?(false)
        }

        /// Appends changes to a pending list, each replacing an earlier change of the same item (`key`).
        private static func add<Change, Key: Equatable>(_ changes: [Change], to list: inout [Change],
                                                        by key: (Change) -> Key) {
            for c in changes {
                list.removeAll { key($0) == key(c) }
                list.append(c)
            }
        }

        func token(for zone: CKRecordZone.ID) -> CKServerChangeToken? {
            locked { zoneTokens[Self.key(zone)].map { CKServerChangeToken(value: $0) } }
        }

        func setToken(_ token: CKServerChangeToken?, for zone: CKRecordZone.ID) {
            locked { zoneTokens[Self.key(zone)] = token?.value }
        }

        func setDatabaseToken(_ token: CKServerChangeToken?) { locked { databaseToken = token?.value } }
        var databaseChangeToken: CKServerChangeToken? { locked { databaseToken.map { CKServerChangeToken(value: $0) } } }

        static func key(_ zone: CKRecordZone.ID) -> String { zone.ownerName + "/" + zone.zoneName }

        /// What the app persists (see `.stateUpdate`).
        var serialization: Serialization {
            locked {
                Serialization(version: Serialization.currentVersion, databaseToken: databaseToken,
                              zoneTokens: zoneTokens,
                              pendingRecordZoneChanges: pendingRecords.map(Serialization.Pending.init),
                              pendingDatabaseChanges: pendingZones.map(Serialization.Pending.init), hasPendingUntrackedChanges: untracked)
            }
        }

        private func locked<T>(_ body: () throws -> T) rethrows -> T {
            lock.lock()
            defer { lock.unlock() }
            return try body()
        }

        /// Mirrors `CKSyncEngine.State.Serialization`: the engine's state to keep beside the app's data, `Codable`,
        /// versioned so a newer engine reads an older one's.
        public struct Serialization: Codable, Sendable, Hashable {
            static let currentVersion = 1
            /// Mirrors `CKSyncEngine.State.Serialization.version`.
            public var version: Int
            var databaseToken: String?
            var zoneTokens: [String: String]
            var pendingRecordZoneChanges: [Pending]
            var pendingDatabaseChanges: [Pending]
            var hasPendingUntrackedChanges: Bool

            /// One pending change as the app keeps it: a record's (with its `recordName`) or a zone's (without), so
            /// both lists are written, and read back, the same way.
            struct Pending: Codable, Sendable, Hashable {
                var kind: String   // "save" or "delete"
                var recordName: String?
                var zoneName: String
                var ownerName: String

                private init(saves: Bool, recordName: String?, zone: CKRecordZone.ID) {
                    kind = saves ? "save" : "delete"
                    self.recordName = recordName
                    zoneName = zone.zoneName
                    ownerName = zone.ownerName
                }

                init(_ c: PendingRecordZoneChange) {
                    self.init(saves: { if case .saveRecord = c { true } else { false } }(),
                              recordName: c.recordID.recordName, zone: c.recordID.zoneID)
                }

                init(_ c: PendingDatabaseChange) {
                    self.init(saves: { if case .saveZone = c { true } else { false } }(), recordName: nil,
                              zone: c.zoneID)
                }

                private var zoneID: CKRecordZone.ID { CKRecordZone.ID(zoneName: zoneName, ownerName: ownerName) }

                /// The record's change; nil for a zone's entry or a kind this engine does not know.
                var recordChange: PendingRecordZoneChange? {
                    guard let recordName else { return nil }
                    let id = CKRecord.ID(recordName: recordName, zoneID: zoneID)
                    return kind == "save" ? .saveRecord(id) : kind == "delete" ? .deleteRecord(id) : nil
                }

                /// The zone's change; nil for a kind this engine does not know.
                var databaseChange: PendingDatabaseChange? {
                    kind == "save" ? .saveZone(CKRecordZone(zoneID: zoneID)) : kind == "delete" ? .deleteZone(zoneID) : nil
                }
            }
        }
    }
}
