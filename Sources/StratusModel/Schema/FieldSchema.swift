/// A field of a record type: its name, its type (fixed once created) and its indexes.
public struct FieldSchema: Hashable, Sendable, Codable {
    public var name: String
    public var type: FieldType
    public var indexes: FieldIndexes

    public init(name: String, type: FieldType, indexes: FieldIndexes = []) {
        self.name = name
        self.type = type
        self.indexes = indexes
    }

    /// Implicit system fields (`___createTime`, …) are declared only to carry indexes.
    public var isSystem: Bool { name.hasPrefix("___") }
}
