/// One environment's schema: custom roles and record types.
public struct Schema: Hashable, Sendable, Codable {
    /// Custom role names (the built-in ones are implicit).
    public var roles: [String]
    public var recordTypes: [RecordTypeSchema]

    public init(roles: [String] = [], recordTypes: [RecordTypeSchema] = []) {
        self.roles = roles
        self.recordTypes = recordTypes
    }

    public func recordType(named name: String) -> RecordTypeSchema? { recordTypes.first { $0.name == name } }

    /// The same schema with types, fields and roles in a canonical order, so comparisons ignore declaration order.
    public var normalized: Schema {
        Schema(roles: roles.sorted(), recordTypes: recordTypes.map {
            RecordTypeSchema(name: $0.name, fields: $0.fields.sorted { $0.name < $1.name }, grants: $0.grants)
        }.sorted { $0.name < $1.name })
    }

    /// Checks names, duplicates, index/type fit and grants to unknown roles.
    public func validate() throws(StratusError) {
        var roleSet = Set<String>()
        for r in roles {
            try Names.validate(roleName: r)
            guard !SecurityRole.isBuiltIn(r) else { throw .badRequest("role '\(r)' is built in and cannot be created") }
            guard roleSet.insert(r).inserted else { throw .badRequest("role '\(r)' is declared twice") }
        }
        var typeNames = Set<String>()
        for t in recordTypes {
            try Names.validate(recordType: t.name)
            guard typeNames.insert(t.name).inserted else { throw .badRequest("record type '\(t.name)' is declared twice") }
            var fieldNames = Set<String>()
            for f in t.fields {
                guard fieldNames.insert(f.name).inserted else { throw .badRequest("field '\(t.name).\(f.name)' is declared twice") }
                if f.isSystem {
                    if f.name == SystemField.etagSchemaName { continue }
                    guard let sys = SystemField(schemaName: f.name) else { throw .badRequest("unknown system field '\(f.name)' in record type '\(t.name)'") }
                    guard f.type.storesSameValues(as: sys.fieldType) else {
                        throw .badRequest("system field '\(f.name)' in record type '\(t.name)' must be \(sys.fieldType)")
                    }
                } else {
                    try Names.validate(fieldName: f.name)
                }
                let allowed = f.isSystem ? FieldIndexes([.queryable, .sortable]) : FieldIndexes.allowed(for: f.type)
                let extra = f.indexes.subtracting(allowed)
                if f.type.encrypted && !extra.isEmpty {
                    throw .badRequest("field '\(t.name).\(f.name)' is ENCRYPTED and cannot be \(extra.names.joined(separator: ", ")): an encrypted value is opaque to the server, so nothing can be queried, sorted or searched by it")
                }
                guard extra.isEmpty else {
                    throw .badRequest("field '\(t.name).\(f.name)' of type \(f.type) cannot be \(extra.names.joined(separator: ", "))")
                }
            }
            for role in t.grants.keys where !SecurityRole.isBuiltIn(role) && !roleSet.contains(role) {
                throw .badRequest("record type '\(t.name)' grants to unknown role '\(role)'")
            }
        }
    }
}
