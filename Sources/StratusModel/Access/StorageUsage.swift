/// What one container environment holds on disk, against its quota (nil: none).
public struct StorageUsage: Sendable, Hashable {
    /// The environment's database file in use (records, indexes, change log), free pages excluded.
    public var recordBytes: Int64
    /// Asset content, each distinct file once.
    public var assetBytes: Int64
    public var quotaBytes: Int64?

    public init(recordBytes: Int64, assetBytes: Int64, quotaBytes: Int64?) {
        self.recordBytes = recordBytes
        self.assetBytes = assetBytes
        self.quotaBytes = quotaBytes
    }

    public var totalBytes: Int64 { recordBytes + assetBytes }

    /// Whether `adding` more bytes would pass the quota.
    public func exceeds(adding: Int64 = 0) -> Bool {
        guard let quotaBytes else { return false }
        return totalBytes + adding > quotaBytes
    }
}
