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
        await finishing(result: { modifyRecordsResultBlock?($0) }, completion: { v,
                        e in modifyRecordsCompletionBlock?(v?.0, v?.1, e) }) {
            let (saveResults, deleteResults) = try await targetDatabase.modifyRecords(saving: saves, deleting: deletes,
                    savePolicy: savePolicy, atomically: isAtomic)
            let byID = Dictionary(saves.map { ($0.recordID, $0) }, uniquingKeysWith: { a, _ in a })
            let missing = { (id: CKRecord.ID) in CKError.make(.serverResponseLost, "no answer for \(id.recordName)") }
            let saved = ItemResults(saves.map(\.recordID), saveResults, missing: missing) { id, result in
                if case .success = result, let r = byID[id] { perRecordProgressBlock?(r, 1) }
                perRecordSaveBlock?(id, result)
                switch result {
                case .success(let s): perRecordCompletionBlock?(s, nil)
                case .failure(let e): if let r = byID[id] { perRecordCompletionBlock?(r, e) }
                }
            }
            let deleted = ItemResults(deletes, deleteResults, missing: missing) { perRecordDeleteBlock?($0, $1) }
            return ((saved.values, deleted.ids), saved.failure("records", with: deleted.errors))
        }
    }
}
