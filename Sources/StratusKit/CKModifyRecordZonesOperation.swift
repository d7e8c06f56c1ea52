import Foundation

/// Mirrors `CKModifyRecordZonesOperation`: creates and deletes zones (`zones/modify`).
open class CKModifyRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKModifyRecordZonesOperation.recordZonesToSave`.
    public var recordZonesToSave: [CKRecordZone]?
    /// Mirrors `CKModifyRecordZonesOperation.recordZoneIDsToDelete`.
    public var recordZoneIDsToDelete: [CKRecordZone.ID]?
    /// Mirrors `CKModifyRecordZonesOperation.perRecordZoneSaveBlock`.
    public var perRecordZoneSaveBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Mirrors `CKModifyRecordZonesOperation.perRecordZoneDeleteBlock`.
    public var perRecordZoneDeleteBlock: ((CKRecordZone.ID, Result<Void, any Error>) -> Void)?
    /// Mirrors `CKModifyRecordZonesOperation.modifyRecordZonesResultBlock`.
    public var modifyRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `modifyRecordZonesCompletionBlock`.
    public var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?

    /// Mirrors `CKModifyRecordZonesOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKModifyRecordZonesOperation(recordZonesToSave:recordZoneIDsToDelete:)`.
    public convenience init(recordZonesToSave: [CKRecordZone]?, recordZoneIDsToDelete: [CKRecordZone.ID]?) {
        self.init()
        self.recordZonesToSave = recordZonesToSave
        self.recordZoneIDsToDelete = recordZoneIDsToDelete
    }

    override func execute() async {
        let saves = recordZonesToSave ?? [], deletes = recordZoneIDsToDelete ?? []
        await finishing(result: { modifyRecordZonesResultBlock?($0) }, completion: { v,
                        e in modifyRecordZonesCompletionBlock?(v?.0, v?.1, e) }) {
            let (s, d) = try await targetDatabase.modifyRecordZones(saving: saves, deleting: deletes)
            let missing = { (id: CKRecordZone.ID) in CKError.make(.serverResponseLost,
                                                                  "no answer for zone \(id.zoneName)") }
            let saved = ItemResults(saves.map(\.zoneID), s, missing: missing) { perRecordZoneSaveBlock?($0, $1) }
            let deleted = ItemResults(deletes, d, missing: missing) { perRecordZoneDeleteBlock?($0, $1) }
            return ((saved.values, deleted.ids), saved.failure("zones", with: deleted.errors))
        }
    }
}
