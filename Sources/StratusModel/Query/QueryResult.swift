public struct QueryResult: Sendable, Hashable {
    public var records: [StoredRecord]
    /// Present when more results follow; pass it back to continue.
    public var continuationMarker: String?
    /// The index SQLite served the page with (nil: it scanned), for people looking at why a query is slow.
    public var servedBy: String?

    public init(records: [StoredRecord], continuationMarker: String?, servedBy: String? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
        self.servedBy = servedBy
    }
}
