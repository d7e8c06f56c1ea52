/// A record type's fields as the schema holds them, looked up by name: what the record rules need of a schema,
/// without the storage's own representation of it (`CatalogType` in StratusStore).
public protocol KnownFields {
    /// The type of the field of this name; nil when the record type has no such field.
    func fieldType(named name: String) -> FieldType?
}

extension RecordTypeSchema: KnownFields {
    public func fieldType(named name: String) -> FieldType? { fields.first { $0.name == name }?.type }
}
