import Foundation

/// Mirrors `CKFetchShareMetadataOperation`: the metadata of share links, before accepting them.
open class CKFetchShareMetadataOperation: CKOperation, @unchecked Sendable {
    /// Mirrors `CKFetchShareMetadataOperation.shareURLs`.
    public var shareURLs: [URL]?
    /// Mirrors `CKFetchShareMetadataOperation.shouldFetchRootRecord`.
    public var shouldFetchRootRecord = false
    /// Mirrors `CKFetchShareMetadataOperation.rootRecordDesiredKeys`.
    public var rootRecordDesiredKeys: [CKRecord.FieldKey]?
    /// Mirrors `CKFetchShareMetadataOperation.perShareMetadataResultBlock`.
    public var perShareMetadataResultBlock: ((URL, Result<CKShare.Metadata, any Error>) -> Void)?
    /// Mirrors `CKFetchShareMetadataOperation.fetchShareMetadataResultBlock`.
    public var fetchShareMetadataResultBlock: ((Result<Void, any Error>) -> Void)?

    /// Mirrors `CKFetchShareMetadataOperation()`.
    public override init() { super.init() }

    /// Mirrors `CKFetchShareMetadataOperation(shareURLs:)`.
    public convenience init(shareURLs: [URL]) {
        self.init()
        self.shareURLs = shareURLs
    }

    override func execute() async {
        var errors: [AnyHashable: any Error] = [:]
        for url in shareURLs ?? [] {
            if isCancelled { break }
            do {
                let m = try await container.shareMetadata(for: url, shouldFetchRootRecord: shouldFetchRootRecord)
                if let keys = rootRecordDesiredKeys, let root = m.rootRecord {
                    for key in root.storedKeys where !keys.contains(key) { root.values.removeValue(forKey: key) }
                }
                perShareMetadataResultBlock?(url, .success(m))
            } catch {
                errors[url] = error
                perShareMetadataResultBlock?(url, .failure(error))
            }
        }
        if isCancelled { fetchShareMetadataResultBlock?(.failure(CKError.make(.operationCancelled, "the operation was cancelled"))); return }
        fetchShareMetadataResultBlock?(partialFailure(errors, "share links").map { .failure($0) } ?? .success(()))
    }
}
