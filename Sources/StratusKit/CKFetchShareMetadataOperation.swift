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
        let c = container, root = shouldFetchRootRecord, keys = rootRecordDesiredKeys
        let result = await eachInTurn(shareURLs ?? [], key: { $0 }, what: "share links", { url in
            let m = try await c.shareMetadata(for: url, shouldFetchRootRecord: root)
            if let keys, let record = m.rootRecord {
                for key in record.storedKeys where !keys.contains(key) { record.values.removeValue(forKey: key) }
            }
            return m
        }) { perShareMetadataResultBlock?($0, $1) }
        fetchShareMetadataResultBlock?(result)
    }
}
