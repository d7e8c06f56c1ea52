/// Schema on write: in Development a save may add its record type and fields, as CloudKit's just-in-time schema
/// does; in Production anything the schema lacks is refused. Values are checked (and widened where CloudKit would,
/// see `ValueCoercion`) against the fields they go into.
public enum SchemaGrowth {
    /// Where a save is, as far as the schema's rules go.
    public struct Context: Sendable {
        public var environment: ContainerEnvironment
        public var scope: DatabaseScope
        public init(environment: ContainerEnvironment, scope: DatabaseScope) {
            self.environment = environment
            self.scope = scope
        }
    }

    /// Checks a record's fields against its type (`known`, nil when the type does not exist yet) without changing
    /// the schema, widens the values that need it in `fields`, and returns the schema change the save needs (nil
    /// when none). `encrypted`: the fields the client sent as encrypted values. CloudKit encrypts only new fields,
    /// never in the public database, and indexes none of them ("CloudKit doesn't allow encryption on fields that
    /// already exist in your app's schema, or on records that you store in the public database").
    /// `makesUserRecord`: the server making a user's `Users` record, whose type is the server's in every environment.
    public static func plan<Known: KnownFields>(_ typeName: String, known: Known?, fields: inout RecordFields,
                                                encrypted: Set<String> = [],
                                                makesUserRecord: Bool = false, recordName: String, in context: Context) throws(StratusError) -> SchemaDiff? {
        if !encrypted.isEmpty && context.scope == .public {
            throw StratusError(.badRequest, "encrypted values are for private and shared databases, not the public one",
                               recordName: recordName)
        }
        if known == nil && makesUserRecord { return SchemaDiff(changes: [.addRecordType(UserRecord.schema)]) }
        if known == nil {
            guard context.environment == .development else {
                throw StratusError(.badRequest,
                                   "record type '\(typeName)' does not exist in the Production schema; deploy it from Development first", recordName: recordName)
            }
            try Names.validate(recordType: typeName)
        }
        var newFields: [FieldSchema] = []
        // Values the schema widens, written back after the loop (writing while iterating copied the dictionary).
        var coerced: [(String, FieldValue)] = []
        for (name, value) in fields {
            if let known, let type = known.fieldType(named: name) {
                if encrypted.contains(name) && !type.encrypted {
                    throw StratusError(.badRequest,
                                       "field '\(name)' exists unencrypted in record type '\(typeName)': CloudKit encrypts only new fields", recordName: recordName)
                }
                if let changed = try ValueCoercion.coercion(value, to: type, field: name,
                                                            recordName: recordName) { coerced.append((name, changed)) }
                continue
            }
            guard context.environment == .development else {
                throw StratusError(.badRequest,
                                   "field '\(name)' does not exist on record type '\(typeName)' in the Production schema", recordName: recordName)
            }
            newFields.append(try newField(name, value, encrypted: encrypted.contains(name), recordName: recordName))
        }
        for (name, value) in coerced { fields[name] = value }
        newFields.sort { $0.name < $1.name }
        if known == nil { return SchemaDiff(changes: [.addRecordType(RecordTypeSchema(name: typeName,
                fields: newFields))]) }
        if newFields.isEmpty { return nil }
        return SchemaDiff(changes: newFields.map { .addField(recordType: typeName, $0) })
    }

    /// The field a Development save adds for a value the type has no field for: of the value's type, with the
    /// indexes CloudKit's just-in-time schema gives it; an encrypted one gets none.
    private static func newField(_ name: String, _ value: FieldValue, encrypted: Bool,
                                 recordName: String) throws(StratusError) -> FieldSchema {
        try Names.validate(fieldName: name)
        guard let ft = value.fieldType else {
            throw StratusError(.badRequest,
                               "field '\(name)' is new and its empty list says no element type; send a typed list",
                    recordName: recordName)
        }
        try value.validate(as: ft, field: name)
        guard encrypted else { return FieldSchema(name: name, type: ft, indexes: FieldIndexes.justInTime(for: ft)) }
        guard ft.scalar != .reference, ft.scalar != .asset else {
            throw StratusError(.badRequest,
                               "field '\(name)': references and assets are not encrypted values (assets are encrypted already)", recordName: recordName)
        }
        var sealed = ft
        sealed.encrypted = true
        return FieldSchema(name: name, type: sealed, indexes: [])
    }
}
