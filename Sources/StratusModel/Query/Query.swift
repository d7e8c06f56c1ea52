/// A records query: type, filters (all must hold), sort keys, and paging.
public struct Query: Hashable, Sendable {
    public var recordType: String
    public var filters: [QueryFilter]
    public var sorts: [QuerySort]
    /// Nil for a query over one zone; otherwise the query spans every zone of the database.
    public var zoneID: ZoneID?
    public var resultsLimit: Int
    public var continuationMarker: String?
    public var desiredKeys: [String]?

    public static let maximumResults = 200

    public init(recordType: String, filters: [QueryFilter] = [], sorts: [QuerySort] = [],
                zoneID: ZoneID? = .defaultZone,
                resultsLimit: Int = Query.maximumResults, continuationMarker: String? = nil, desiredKeys: [String]? = nil) {
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
        self.zoneID = zoneID
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
    }
}
