import Foundation
import StratusJSON

extension CKDatabase {
    /// Mirrors `CKDatabase.RecordZoneChange`: what `recordZoneChanges(inZoneWith:since:)` reports.
    public enum RecordZoneChange {
        /// Mirrors `CKDatabase.RecordZoneChange.Modification`.
        public struct Modification: @unchecked Sendable {
            /// Mirrors `CKDatabase.RecordZoneChange.Modification.record`.
            public let record: CKRecord
            /// Mirrors `CKDatabase.RecordZoneChange.Modification.recordID`.
            public var recordID: CKRecord.ID { record.recordID }
        }

        /// Mirrors `CKDatabase.RecordZoneChange.Deletion`: the deleted record's ID and type.
        public struct Deletion: Sendable {
            /// Mirrors `CKDatabase.RecordZoneChange.Deletion.recordID`.
            public let recordID: CKRecord.ID
            /// Mirrors `CKDatabase.RecordZoneChange.Deletion.recordType`.
            public let recordType: CKRecord.RecordType
        }
    }

    /// Mirrors `CKDatabase.DatabaseChange`: what `databaseChanges(since:)` reports.
    public enum DatabaseChange {
        /// Mirrors `CKDatabase.DatabaseChange.Modification`: a zone with changes.
        public struct Modification: Sendable {
            /// Mirrors `CKDatabase.DatabaseChange.Modification.zoneID`.
            public let zoneID: CKRecordZone.ID
        }

        /// Mirrors `CKDatabase.DatabaseChange.Deletion`: a zone that is gone, and why.
        public struct Deletion: Sendable {
            /// Mirrors `CKDatabase.DatabaseChange.Deletion.zoneID`.
            public let zoneID: CKRecordZone.ID
            /// Mirrors `CKDatabase.DatabaseChange.Deletion.reason`.
            public let reason: Reason

            /// Mirrors `CKDatabase.DatabaseChange.Deletion.Reason`.
            public enum Reason: Sendable {
                case deleted, purged, encryptedDataReset
            }
        }
    }

    /// Mirrors `CKDatabase.recordZoneChanges(inZoneWith:since:desiredKeys:resultsLimit:)`: one page of a zone's
    /// changes (`records/changes`); call again with the returned token while `moreComing`.
    public func recordZoneChanges(inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?,
                                  desiredKeys: [CKRecord.FieldKey]? = nil, resultsLimit: Int? = nil) async throws
        -> (modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>],
            deletions: [RecordZoneChange.Deletion],
            changeToken: CKServerChangeToken, moreComing: Bool) {
        let page = try await zoneChangesPage(zoneID, since: changeToken, desiredKeys: desiredKeys,
                                             resultsLimit: resultsLimit)
        var mods: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>] = [:]
        mods.reserveCapacity(page.changed.count)
        for r in page.changed { mods[r.recordID] = .success(RecordZoneChange.Modification(record: r)) }
        return (mods, page.deleted, page.token, page.moreComing)
    }

    /// One page of a zone's change feed, decoded.
    struct ZoneChangesPage {
        var changed: [CKRecord] = []
        var deleted: [RecordZoneChange.Deletion] = []
        var token: CKServerChangeToken
        var moreComing: Bool
    }

    func zoneChangesPage(_ zoneID: CKRecordZone.ID, since token: CKServerChangeToken?,
                         desiredKeys: [CKRecord.FieldKey]?, resultsLimit: Int?) async throws -> ZoneChangesPage {
        var body: WireObject = ["zoneID": JSON(RecordCoder.zoneJSON(zoneID))]
        if let token { body["syncToken"] = JSON(token.value) }
        if let desiredKeys { body["desiredKeys"] = JSON(desiredKeys) }
        if let resultsLimit, resultsLimit > 0 { body["resultsLimit"] = JSON(resultsLimit) }
        let j = try await call("records/changes", body)
        guard let next = j["syncToken"]?.string else { throw CKError.make(.serverResponseLost,
                "records/changes gave no syncToken") }
        var page = ZoneChangesPage(token: CKServerChangeToken(value: next), moreComing: j["moreComing"]?.bool ?? false)
        let items = j["records"]?.objects ?? []
        var live: [WireObject] = []
        live.reserveCapacity(items.count)
        for item in items {
            if item["deleted"]?.bool == true, let id = recordID(item, zoneID: zoneID) {
                page.deleted.append(RecordZoneChange.Deletion(recordID: id,
                                                              recordType: item["recordType"]?.string ?? ""))
            } else {
                live.append(item)
            }
        }
        for d in try await decode(live, zoneID: zoneID) {
            if case .record(let r) = d {
                r.isPartial = desiredKeys != nil
                page.changed.append(r)
            }
        }
        return page
    }

    /// Mirrors `CKDatabase.databaseChanges(since:resultsLimit:)`: which zones changed or went (`changes/database`).
    public func databaseChanges(since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil) async throws
        -> (modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion],
            changeToken: CKServerChangeToken, moreComing: Bool) {
        var body: WireObject = [:]
        if let changeToken { body["syncToken"] = JSON(changeToken.value) }
        if let resultsLimit, resultsLimit > 0 { body["resultsLimit"] = JSON(resultsLimit) }
        let j = try await call("changes/database", body)
        guard let next = j["syncToken"]?.string else { throw CKError.make(.serverResponseLost,
                "changes/database gave no syncToken") }
        var mods: [DatabaseChange.Modification] = [], dels: [DatabaseChange.Deletion] = []
        for z in j["zones"]?.objects ?? [] {
            let id = RecordCoder.zoneID(z["zoneID"], scope: databaseScope)
            if z["deleted"]?.bool == true || z["purged"]?.bool == true || z["encryptedDataReset"]?.bool == true {
                let reason: DatabaseChange.Deletion.Reason = z["purged"]?.bool == true ? .purged : z["encryptedDataReset"]?.bool == true ? .encryptedDataReset : .deleted
                dels.append(DatabaseChange.Deletion(zoneID: id, reason: reason))
            } else {
                mods.append(DatabaseChange.Modification(zoneID: id))
            }
        }
        return (mods, dels, CKServerChangeToken(value: next), j["moreComing"]?.bool ?? false)
    }
}
