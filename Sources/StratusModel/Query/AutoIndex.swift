/// A composite index Stratus built itself for a query shape it saw often and found expensive: the zone, the
/// shape's equality fields, then its sort (or range) field, then the record's id, so that it hands rows over in the
/// `(sort, id)` order that keyset paging needs.
///
/// It is an index table (`name`: the record's id and those columns, with a B-tree index over them) that triggers on
/// the type's table keep current, rather than a CREATE INDEX on that table: SQLite builds an index in one statement
/// that holds the writer until it is done, while an index table fills in short steps that writers interleave with (see
/// `EnvironmentStore.buildAutoIndex`).
public struct AutoIndex: Sendable, Hashable, Codable {
    public var name, recordType: String
    /// Field names, in index order.
    public var equalityFields: [String]
    public var orderField: String?
    /// The shape it was built for (`QueryShape.description`).
    public var shape: String
    /// Never dropped for disuse.
    public var pinned: Bool
    public var createdAt, lastUsedAt: Int64
    /// How long building it took, all steps (milliseconds).
    public var buildMilliseconds: Double
    /// While it is being built, the last record id copied into it (nil once it is complete; queries use it only then).
    public var builtThrough: Int64?
    /// Its estimated size on disk (bytes), counted against the environment's budget.
    public var estimatedBytes: Int64 = 0
    /// The longest any one build step held the writer (milliseconds): what a write may have waited for it.
    public var longestStepMilliseconds: Double = 0

    public var isReady: Bool { builtThrough == nil }

    public init(name: String, recordType: String, equalityFields: [String], orderField: String?, shape: String,
                pinned: Bool = false,
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
        // Set equality without building sets: this runs for every query of a type with automatic indexes.
        guard shape.recordType == recordType, shape.equalities.allSatisfy(equalityFields.contains),
              equalityFields.allSatisfy(shape.equalities.contains), let orderField else { return false }
        if let first = shape.sorts.first {
            let name = first.first == "-" ? first.dropFirst() : Substring(first)
            return name == orderField && !first.hasSuffix("@")
        }
        return shape.range == orderField
    }
}
