/// The changes that turn one schema into another, and the ones of them that would lose data.
public struct SchemaDiff: Hashable, Sendable {
    public var changes: [SchemaChange]
    /// Why some changes cannot be applied; empty when the whole diff is allowed.
    public var refusals: [String]

    public init(changes: [SchemaChange], refusals: [String] = []) {
        self.changes = changes
        self.refusals = refusals
    }

    public var isEmpty: Bool { changes.isEmpty }

    /// Diff from `current` to `target`. `protected` is the schema whose types and fields must survive
    /// (Production's): removing one of them, or changing any field's type, is refused.
    public static func between(_ current: Schema, _ target: Schema, protecting protected: Schema? = nil) -> SchemaDiff {
        var changes: [SchemaChange] = []
        var refusals: [String] = []
        let protected = protected ?? current
        for role in target.roles where !current.roles.contains(role) { changes.append(.addRole(role)) }
        for role in current.roles where !target.roles.contains(role) { changes.append(.removeRole(role)) }

        for t in target.recordTypes {
            guard let old = current.recordType(named: t.name) else {
                changes.append(.addRecordType(t))
                continue
            }
            for f in t.fields {
                if let of = old.field(named: f.name) {
                    if !of.type.storesSameValues(as: f.type) {
                        changes.append(.changeFieldType(recordType: t.name, field: f.name, from: of.type, to: f.type))
                        refusals.append("field \(t.name).\(f.name) is \(of.type) and cannot become \(f.type): a field's type never changes")
                    }
                    if of.indexes != f.indexes {
                        changes.append(.changeIndexes(recordType: t.name, field: f.name, from: of.indexes,
                                                      to: f.indexes))
                    }
                } else {
                    changes.append(.addField(recordType: t.name, f))
                }
            }
            for of in old.fields where t.field(named: of.name) == nil {
                if of.isSystem {
                    if !of.indexes.isEmpty { changes.append(.changeIndexes(recordType: t.name, field: of.name,
                            from: of.indexes, to: [])) }
                    continue
                }
                changes.append(.removeField(recordType: t.name, field: of.name))
                if protected.recordType(named: t.name)?.field(named: of.name) != nil {
                    refusals.append("field \(t.name).\(of.name) exists in Production and cannot be removed")
                }
            }
            let roles = Set(old.grants.keys).union(t.grants.keys)
            for role in SchemaPrinter.orderedRoles(roles) {
                let a = old.grants[role] ?? [], b = t.grants[role] ?? []
                if a != b { changes.append(.changeGrants(recordType: t.name, role: role, from: a, to: b)) }
            }
        }
        // The Users type is the server's (see `UserRecord`): a schema that does not name it leaves it be.
        for old in current.recordTypes where target.recordType(named: old.name) == nil && old.name != UserRecord.recordType {
            changes.append(.removeRecordType(old.name))
            if protected.recordType(named: old.name) != nil {
                refusals.append("record type \(old.name) exists in Production and cannot be removed")
            }
        }
        return SchemaDiff(changes: changes, refusals: refusals)
    }

    public func validate() throws(StratusError) {
        guard refusals.isEmpty else { throw .badRequest("schema change refused: " + refusals.joined(separator: "; ")) }
    }
}
