public struct QueryResult: Sendable, Hashable {
    public var records: [StoredRecord]
    /// Present when more results follow; pass it back to continue.
    public var continuationMarker: String?

    public init(records: [StoredRecord], continuationMarker: String?) {
        self.records = records
        self.continuationMarker = continuationMarker
    }
}
