import Foundation

/// Mirrors `CKQueryOperation`: runs a query (or continues one from a cursor) for one page of results.
open class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKQueryOperation.maximumResults`: as many as the server gives in a page.
    public static let maximumResults = 0

    /// Mirrors `CKQueryOperation.query`.
    public var query: CKQuery?
    /// Mirrors `CKQueryOperation.cursor`.
    public var cursor: Cursor?
    /// Mirrors `CKQueryOperation.zoneID`.
    public var zoneID: CKRecordZone.ID?
    /// Mirrors `CKQueryOperation.resultsLimit`.
    public var resultsLimit: Int = CKQueryOperation.maximumResults
    /// Mirrors `CKQueryOperation.desiredKeys`.
    public var desiredKeys: [CKRecord.FieldKey]?
    /// Mirrors `recordMatchedBlock`.
    public var recordMatchedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    /// Mirrors the deprecated `recordFetchedBlock`.
    public var recordFetchedBlock: ((CKRecord) -> Void)?
    /// Mirrors `queryResultBlock`: the cursor of the next page, or nil at the end.
    public var queryResultBlock: ((Result<Cursor?, any Error>) -> Void)?
    /// Mirrors the deprecated `queryCompletionBlock`.
    public var queryCompletionBlock: ((Cursor?, (any Error)?) -> Void)?

    /// Mirrors `CKQueryOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKQueryOperation(query:)`.
    public convenience init(query: CKQuery) {
        self.init()
        self.query = query
    }

    /// Mirrors `CKQueryOperation(cursor:)`.
    public convenience init(cursor: Cursor) {
        self.init()
        self.cursor = cursor
    }

    override func execute() async {
        do {
            try checkCancelled()
            let db = targetDatabase
            let page: (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: Cursor?)
            if let cursor {
                page = try await db.records(continuingMatchFrom: cursor, desiredKeys: desiredKeys,
                                            resultsLimit: resultsLimit)
            } else if let query {
                page = try await db.records(matching: query, inZoneWith: zoneID, desiredKeys: desiredKeys,
                                            resultsLimit: resultsLimit)
            } else {
                throw CKError.make(.invalidArguments, "a CKQueryOperation needs a query or a cursor")
            }
            for (id, result) in page.matchResults {
                recordMatchedBlock?(id, result)
                if case .success(let r) = result { recordFetchedBlock?(r) }
            }
            queryResultBlock?(.success(page.queryCursor))
            queryCompletionBlock?(page.queryCursor, nil)
        } catch {
            queryResultBlock?(.failure(error))
            queryCompletionBlock?(nil, error)
        }
    }
}
