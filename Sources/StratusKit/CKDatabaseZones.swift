import Foundation
import StratusJSON

extension CKDatabase {
    /// Mirrors `CKDatabase.allRecordZones()` (`zones/list`).
    public func allRecordZones() async throws -> [CKRecordZone] {
        let j = try await call("zones/list", nil)
        return (j["zones"]?.objects ?? []).compactMap { z in
            z["serverErrorCode"] == nil ? zone(z) : nil
        }
    }

    /// Mirrors `CKDatabase.recordZone(for:)`.
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        guard let r = try await recordZones(for: [zoneID])[zoneID] else { throw CKError.make(.zoneNotFound, "zone \(zoneID.zoneName) not found") }
        return try r.get()
    }

    /// Mirrors `CKDatabase.recordZones(for:)` (`zones/lookup`).
    public func recordZones(for ids: [CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        let j = try await call("zones/lookup", ["zones": JSON(ids.map(RecordCoder.zoneJSON))])
        var out: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for (i, z) in (j["zones"]?.objects ?? []).enumerated() {
            let id = z["zoneID"] != nil ? RecordCoder.zoneID(z["zoneID"], scope: databaseScope) : (i < ids.count ? ids[i] : .default)
            out[id] = z["serverErrorCode"] != nil ? .failure(CKError.from(server: z, scope: databaseScope, zoneID: id)) : .success(zone(z))
        }
        return out
    }

    /// Mirrors `CKDatabase.save(_:)` for a zone.
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        try await saveOne(zone, zone.zoneID, "the zone save") { try await modifyRecordZones(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.deleteRecordZone(withID:)`.
    @discardableResult
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        try await deleteOne(zoneID, "the zone delete") { try await modifyRecordZones(saving: $0, deleting: $1) }
    }

    /// Mirrors `CKDatabase.modifyRecordZones(saving:deleting:)` (`zones/modify`).
    public func modifyRecordZones(saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID]) async throws
        -> (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>]) {
        let ops: [WireObject] = recordZonesToSave.map { ["operationType": "create", "zone": ["zoneID": JSON(RecordCoder.zoneJSON($0.zoneID))]] }
            + recordZoneIDsToDelete.map { ["operationType": "delete", "zone": ["zoneID": JSON(RecordCoder.zoneJSON($0))]] }
        let j = try await call("zones/modify", ["operations": JSON(ops)])
        let items = j["zones"]?.objects ?? []
        guard items.count == ops.count else { throw CKError.make(.serverResponseLost, "zones/modify answered \(items.count) of \(ops.count) operations") }
        return modifyResults(items, saving: recordZonesToSave, id: \.zoneID, deleting: recordZoneIDsToDelete, zoneOf: { $0 }) { item, _ in zone(item) }
    }

    func zone(_ j: WireObject) -> CKRecordZone {
        let z = CKRecordZone(zoneID: RecordCoder.zoneID(j["zoneID"], scope: databaseScope))
        if j["atomic"]?.bool == false { z.capabilities.remove(.atomic) }
        if let s = j["share"]?.object, let name = s["recordName"]?.string {
            z.share = CKRecord.Reference(recordID: CKRecord.ID(recordName: name, zoneID: z.zoneID), action: .none)
        }
        return z
    }
}
