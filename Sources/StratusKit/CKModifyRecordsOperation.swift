import Foundation

/// Mirrors `CKModifyRecordsOperation`: saves and deletes records in one batch per zone (`records/modify`).
open class CKModifyRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKModifyRecordsOperation.RecordSavePolicy`, with CloudKit's raw values.
    public enum RecordSavePolicy: Int, Sendable {
        /// Saves the changed keys only if the server's record still has the client's change tag.
        case ifServerRecordUnchanged = 0
        /// Saves the changed keys whatever the server holds.
        case changedKeys = 1
        /// Saves every key whatever the server holds (keys not set become empty).
        case allKeys = 2
    }

    /// Mirrors `CKModifyRecordsOperation.recordsToSave`.
    public var recordsToSave: [CKRecord]?
    /// Mirrors `CKModifyRecordsOperation.recordIDsToDelete`.
    public var recordIDsToDelete: [CKRecord.ID]?
    /// Mirrors `CKModifyRecordsOperation.savePolicy`.
    public var savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    /// Mirrors `isAtomic`: in a custom zone, all of the batch or none of it.
    public var isAtomic = true
    /// Mirrors `CKModifyRecordsOperation.clientChangeTokenData`.
    public var clientChangeTokenData: Data?
    /// Mirrors `perRecordProgressBlock`: a record's upload progress. Its assets are uploaded before the request
    /// that saves it, so each record reports 1.0 once, when the server has it.
    public var perRecordProgressBlock: ((CKRecord, Double) -> Void)?
    /// Mirrors `perRecordSaveBlock`.
    public var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Mirrors `perRecordDeleteBlock`.
    public var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)?
    /// Mirrors `modifyRecordsResultBlock`: `.failure(.partialFailure)` with `partialErrorsByItemID` when some failed.
    public var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `perRecordCompletionBlock`.
    public var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)?
    /// Mirrors the deprecated `modifyRecordsCompletionBlock`.
    public var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)?

    /// Mirrors `CKModifyRecordsOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKModifyRecordsOperation(recordsToSave:recordIDsToDelete:)`.
    public convenience init(recordsToSave: [CKRecord]?, recordIDsToDelete: [CKRecord.ID]?) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    override func execute() async {
        let saves = recordsToSave ?? [], deletes = recordIDsToDelete ?? []
        do {
            try checkCancelled()
            let (saveResults, deleteResults) = try await targetDatabase.modifyRecords(saving: saves, deleting: deletes, savePolicy: savePolicy, atomically: isAtomic)
            var saved: [CKRecord] = [], deleted: [CKRecord.ID] = [], errors: [AnyHashable: any Error] = [:]
            for r in saves {
                let result = saveResults[r.recordID] ?? .failure(CKError.make(.serverResponseLost, "no answer for \(r.recordID.recordName)"))
                if case .success = result { perRecordProgressBlock?(r, 1) }
                perRecordSaveBlock?(r.recordID, result)
                switch result {
                case .success(let s): saved.append(s); perRecordCompletionBlock?(s, nil)
                case .failure(let e): errors[r.recordID] = e; perRecordCompletionBlock?(r, e)
                }
            }
            for id in deletes {
                let result = deleteResults[id] ?? .failure(CKError.make(.serverResponseLost, "no answer for \(id.recordName)"))
                perRecordDeleteBlock?(id, result)
                switch result {
                case .success: deleted.append(id)
                case .failure(let e): errors[id] = e
                }
            }
            let failure = partialFailure(errors, "records")
            modifyRecordsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            modifyRecordsCompletionBlock?(saved, deleted, failure)
        } catch {
            modifyRecordsResultBlock?(.failure(error))
            modifyRecordsCompletionBlock?(nil, nil, error)
        }
    }
}
