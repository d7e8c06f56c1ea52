/// A record type: its fields (user fields and indexed system fields) and its role grants.
public struct RecordTypeSchema: Hashable, Sendable, Codable {
    public var name: String
    /// In declaration order; names are unique.
    public var fields: [FieldSchema]
    /// Role name → permissions. Roles absent here have none.
    public var grants: [String: Permission]

    public init(name: String, fields: [FieldSchema] = [], grants: [String: Permission] = SecurityRole.defaultGrants) {
        self.name = name
        self.fields = fields
        self.grants = grants
    }

    public func field(named name: String) -> FieldSchema? { fields.first { $0.name == name } }
    public var userFields: [FieldSchema] { fields.filter { !$0.isSystem } }

    /// Indexes declared on a system field via its implicit schema name.
    public func indexes(of system: SystemField) -> FieldIndexes {
        field(named: system.schemaName)?.indexes ?? []
    }
}
