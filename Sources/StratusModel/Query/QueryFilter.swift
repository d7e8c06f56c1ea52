public struct QueryFilter: Hashable, Sendable, Codable {
    public var comparator: FilterComparator
    public var field: FieldRef
    public var value: FieldValue
    /// Metres, for NEAR.
    public var distance: Double?

    /// The field name CloudKit's `self CONTAINS 'words'` arrives as: a token search of all of a record's string
    /// fields (unless the type has a field of that name).
    public static let allFields = "self"

    public init(_ field: FieldRef, _ comparator: FilterComparator, _ value: FieldValue, distance: Double? = nil) {
        self.comparator = comparator
        self.field = field
        self.value = value
        self.distance = distance
    }
}
