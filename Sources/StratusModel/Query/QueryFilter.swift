public struct QueryFilter: Hashable, Sendable, Codable {
    public var comparator: Comparator
    public var field: FieldRef
    public var value: FieldValue
    /// Metres, for NEAR.
    public var distance: Double?

    public init(_ field: FieldRef, _ comparator: Comparator, _ value: FieldValue, distance: Double? = nil) {
        self.comparator = comparator
        self.field = field
        self.value = value
        self.distance = distance
    }
}
