import Foundation

/// Mirrors `CKFetchRecordsOperation`: fetches records by ID (`records/lookup`).
open class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchRecordsOperation.recordIDs`.
    public var recordIDs: [CKRecord.ID]?
    /// Mirrors `CKFetchRecordsOperation.desiredKeys`.
    public var desiredKeys: [CKRecord.FieldKey]?
    /// Mirrors `perRecordProgressBlock`: a record's download progress; StratusKit reads a record (and its assets)
    /// in one response, so each record reports 1.0 once, before its result.
    public var perRecordProgressBlock: ((CKRecord.ID, Double) -> Void)?
    /// Mirrors `perRecordResultBlock`.
    public var perRecordResultBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Mirrors `fetchRecordsResultBlock`: `.failure(.partialFailure)` when some records failed.
    public var fetchRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `perRecordCompletionBlock`.
    public var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?
    /// Mirrors the deprecated `fetchRecordsCompletionBlock`.
    public var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?

    /// Mirrors `CKFetchRecordsOperation()`: set its properties, then add it to a database.
    public required override init() { super.init() }

    /// Mirrors `CKFetchRecordsOperation.fetchCurrentUserRecordOperation()`: fetches the user record of the signed-in
    /// user (`CKRecord.SystemType.userRecord`) from the database it is added to.
    public class func fetchCurrentUserRecordOperation() -> Self {
        let operation = self.init()
        operation.recordIDs = [CKRecord.ID(recordName: CKCurrentUserDefaultName)]
        return operation
    }

    /// Mirrors `CKFetchRecordsOperation(recordIDs:)`.
    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    override func execute() async {
        var ids = recordIDs ?? []
        await finishing(result: { fetchRecordsResultBlock?($0) }, completion: { fetchRecordsCompletionBlock?($0,
                $1) }) {
            if ids.contains(where: { $0.recordName == CKCurrentUserDefaultName }) {
                let me = try await container.userRecordID()
                ids = ids.map { $0.recordName == CKCurrentUserDefaultName ? me : $0 }
            }
            let results = ids.isEmpty ? [:] : try await targetDatabase.records(for: ids, desiredKeys: desiredKeys)
            let fetched = ItemResults(ids, results, missing: { CKError.make(.unknownItem,
                    "record \($0.recordName) not found") }) { id, r in
                if case .success = r { perRecordProgressBlock?(id, 1) }
                perRecordResultBlock?(id, r)
                switch r {
                case .success(let rec): perRecordCompletionBlock?(rec, id, nil)
                case .failure(let e): perRecordCompletionBlock?(nil, id, e)
                }
            }
            return (fetched.byID, fetched.failure("records"))
        }
    }
}
