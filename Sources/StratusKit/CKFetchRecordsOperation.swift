import Foundation

/// Mirrors `CKFetchRecordsOperation`: fetches records by ID (`records/lookup`).
open class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchRecordsOperation.recordIDs`.
    public var recordIDs: [CKRecord.ID]?
    /// Mirrors `CKFetchRecordsOperation.desiredKeys`.
    public var desiredKeys: [CKRecord.FieldKey]?
    /// Mirrors `perRecordResultBlock`.
    public var perRecordResultBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Mirrors `fetchRecordsResultBlock`: `.failure(.partialFailure)` when some records failed.
    public var fetchRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `perRecordCompletionBlock`.
    public var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?
    /// Mirrors the deprecated `fetchRecordsCompletionBlock`.
    public var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?

    /// Mirrors `CKFetchRecordsOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKFetchRecordsOperation(recordIDs:)`.
    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    override func execute() async {
        let ids = recordIDs ?? []
        do {
            try checkCancelled()
            let results = ids.isEmpty ? [:] : try await targetDatabase.records(for: ids, desiredKeys: desiredKeys)
            var fetched: [CKRecord.ID: CKRecord] = [:], errors: [AnyHashable: any Error] = [:]
            for id in ids {
                let r = results[id] ?? .failure(CKError.make(.unknownItem, "record \(id.recordName) not found"))
                perRecordResultBlock?(id, r)
                switch r {
                case .success(let rec): fetched[id] = rec; perRecordCompletionBlock?(rec, id, nil)
                case .failure(let e): errors[id] = e; perRecordCompletionBlock?(nil, id, e)
                }
            }
            let failure = partialFailure(errors, "records")
            fetchRecordsResultBlock?(failure.map { .failure($0) } ?? .success(()))
            fetchRecordsCompletionBlock?(fetched, failure)
        } catch {
            fetchRecordsResultBlock?(.failure(error))
            fetchRecordsCompletionBlock?(nil, error)
        }
    }
}
