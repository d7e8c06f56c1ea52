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
        do {
            try checkCancelled()
            let (s, d) = try await targetDatabase.modifyRecordZones(saving: saves, deleting: deletes)
            var saved: [CKRecordZone] = [], deleted: [CKRecordZone.ID] = [], errors: [AnyHashable: any Error] = [:]
            for z in saves {
                let r = s[z.zoneID] ?? .failure(CKError.make(.serverResponseLost, "no answer for zone \(z.zoneID.zoneName)"))
                perRecordZoneSaveBlock?(z.zoneID, r)
                switch r {
                case .success(let zone): saved.append(zone)
                case .failure(let e): errors[z.zoneID] = e
                }
            }
            for id in deletes {
                let r = d[id] ?? .failure(CKError.make(.serverResponseLost, "no answer for zone \(id.zoneName)"))
                perRecordZoneDeleteBlock?(id, r)
                switch r {
                case .success: deleted.append(id)
                case .failure(let e): errors[id] = e
                }
            }
            let failure = partialFailure(errors, "zones")
            modifyRecordZonesResultBlock?(failure.map { .failure($0) } ?? .success(()))
            modifyRecordZonesCompletionBlock?(saved, deleted, failure)
        } catch {
            modifyRecordZonesResultBlock?(.failure(error))
            modifyRecordZonesCompletionBlock?(nil, nil, error)
        }
    }
}
