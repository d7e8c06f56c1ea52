/// One difference between two schemas, as data a person can read and a store can apply.
public enum SchemaChange: Hashable, Sendable, CustomStringConvertible {
    case addRole(String)
    case removeRole(String)
    case addRecordType(RecordTypeSchema)
    case removeRecordType(String)
    case addField(recordType: String, FieldSchema)
    case removeField(recordType: String, field: String)
    case changeFieldType(recordType: String, field: String, from: FieldType, to: FieldType)
    case changeIndexes(recordType: String, field: String, from: FieldIndexes, to: FieldIndexes)
    case changeGrants(recordType: String, role: String, from: Permission, to: Permission)

    public var description: String {
        switch self {
        case .addRole(let r): "add role \(r)"
        case .removeRole(let r): "remove role \(r)"
        case .addRecordType(let t): "add record type \(t.name) (\(t.userFields.count) field\(t.userFields.count == 1 ? "" : "s"))"
        case .removeRecordType(let t): "remove record type \(t)"
        case .addField(let t, let f):
            "add field \(t).\(f.name) \(f.type)" + (f.indexes.isEmpty ? "" : " " + f.indexes.names.joined(separator: " "))
        case .removeField(let t, let f): "remove field \(t).\(f)"
        case .changeFieldType(let t, let f, let a, let b): "change type of \(t).\(f) from \(a) to \(b)"
        case .changeIndexes(let t, let f, let a, let b):
            "change indexes of \(t).\(f) from [\(a.names.joined(separator: " "))] to [\(b.names.joined(separator: " "))]"
        case .changeGrants(let t, let r, let a, let b):
            "change grants of \(r) on \(t) from [\(a.names.joined(separator: ", "))] to [\(b.names.joined(separator: ", "))]"
        }
    }
}
