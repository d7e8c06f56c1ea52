/// The indexes a field carries. QUERYABLE serves equality, SORTABLE ranges and sorting, SEARCHABLE full text.
public struct FieldIndexes: NamedOptions, Hashable, Sendable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let queryable = FieldIndexes(rawValue: 1)
    public static let sortable = FieldIndexes(rawValue: 2)
    public static let searchable = FieldIndexes(rawValue: 4)

    public static let named: [(option: FieldIndexes, name: String)] = [(.queryable, "QUERYABLE"), (.sortable,
            "SORTABLE"), (.searchable, "SEARCHABLE")]

    /// What just-in-time schema gives a new field so a developer can query it at once.
    public static func justInTime(for type: FieldType) -> FieldIndexes {
        switch type.scalar {
        case .string where !type.isList: [.queryable, .sortable, .searchable]
        case .bytes, .asset: []
        case .location: type.isList ? [] : [.queryable]
        case .reference: [.queryable]
        default: type.isList ? [.queryable] : [.queryable, .sortable]
        }
    }

    /// The indexes a field of this type can carry at all.
    public static func allowed(for type: FieldType) -> FieldIndexes {
        // An ENCRYPTED value is opaque to the server (the client encrypts it), so nothing can be looked up by it.
        if type.encrypted { return [] }
        return switch type.scalar {
        case .string: type.isList ? [.queryable] : [.queryable, .sortable, .searchable]
        case .bytes, .asset: []
        case .location: type.isList ? [] : [.queryable, .sortable]
        case .reference: [.queryable]
        default: type.isList ? [.queryable] : [.queryable, .sortable]
        }
    }
}
