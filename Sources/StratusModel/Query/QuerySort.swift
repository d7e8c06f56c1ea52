public struct QuerySort: Hashable, Sendable {
    public var field: FieldRef
    public var ascending: Bool
    /// Sort by distance from this point (LOCATION fields).
    public var relativeLocation: Location?

    public init(_ field: FieldRef, ascending: Bool = true, relativeLocation: Location? = nil) {
        self.field = field
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}
