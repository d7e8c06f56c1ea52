/// A composite index Stratus built itself for a query shape it saw often and found expensive: the zone, the
/// shape's equality fields, then its sort (or range) field. SQLite keeps every index entry in rowid order after its
/// columns, so the index also hands rows over in the `(sort, id)` order that keyset paging needs.
public struct AutoIndex: Sendable, Hashable, Codable {
    public var name: String
    public var recordType: String
    /// Field names, in index order.
    public var equalityFields: [String]
    public var orderField: String?
    /// The shape it was built for (`QueryShape.description`).
    public var shape: String
    /// Never dropped for disuse.
    public var pinned: Bool
    public var createdAt: Int64
    public var lastUsedAt: Int64
    /// How long building it held the writer (milliseconds).
    public var buildMilliseconds: Double

    public init(name: String, recordType: String, equalityFields: [String], orderField: String?, shape: String, pinned: Bool = false,
                createdAt: Int64, lastUsedAt: Int64, buildMilliseconds: Double = 0) {
        self.name = name
        self.recordType = recordType
        self.equalityFields = equalityFields
        self.orderField = orderField
        self.shape = shape
        self.pinned = pinned
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.buildMilliseconds = buildMilliseconds
    }

    /// Whether this index serves `shape`: the same equality fields, and its order field is the shape's first sort
    /// key (or, unsorted, its range field).
    public func serves(_ shape: QueryShape) -> Bool {
        guard shape.recordType == recordType, Set(shape.equalities) == Set(equalityFields), let orderField else { return false }
        if let first = shape.sorts.first { return first.trimmingCharacters(in: ["-"]) == orderField && !first.hasSuffix("@") }
        return shape.range == orderField
    }
}
