import StratusModel

/// What Production would refuse of what an app does in Development — the error apps keep shipping ("Cannot create
/// new type … in production schema"), caught before it ships: `stratus schema check` in CI, and the Deploy page.
public struct SchemaCheckProblem: Sendable, Hashable, CustomStringConvertible {
    public var recordType: String
    public var field: String?
    public var message: String
    public var description: String { message }
}

extension RecordStore {
    /// Record types and fields of Development's schema (many made just in time) that Production does not have, and
    /// the queries Development ran (by their shapes) on fields without the index Production needs for them.
    public func schemaCheck(container: ContainerID) throws(StratusError) -> [SchemaCheckProblem] {
        let dev = try environment(container, .development)
        let prod = try environment(container, .production).schema()
        let development = try dev.schema()
        var problems: [SchemaCheckProblem] = []
        for t in development.recordTypes {
            guard let p = prod.recordType(named: t.name) else {
                problems.append(SchemaCheckProblem(recordType: t.name, message: "record type \(t.name) is not in Production's schema: saving one there fails (deploy it)"))
                continue
            }
            for f in t.userFields where p.field(named: f.name) == nil {
                problems.append(SchemaCheckProblem(recordType: t.name, field: f.name, message: "field \(t.name).\(f.name) is not in Production's schema: saving it there fails (deploy it)"))
            }
        }
        var seen = Set<String>()
        for shape in try dev.queriedShapes() {
            let type = prod.recordType(named: shape.recordType) ?? development.recordType(named: shape.recordType)
            guard let type else { continue }
            var needs: [(String, FieldIndexes, String)] = shape.equalities.map { ($0, .queryable, "an equality filter") }
            if let r = shape.range { needs.append((r, .sortable, "a range filter")) }
            for o in shape.others {
                let parts = o.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2, let c = FilterComparator(rawValue: parts[1]) else { continue }
                needs.append((parts[0], c.requiredIndex, "a \(c.rawValue) filter"))
            }
            for s in shape.sorts { needs.append((String(s.drop { $0 == "-" }).replacingOccurrences(of: "@", with: ""), .sortable, "sorting")) }
            if shape.equalities.isEmpty && shape.range == nil && shape.others.isEmpty {
                needs.append((SystemField.recordName.rawValue, .queryable, "a query without filters"))
            }
            for (field, index, what) in needs {
                let have: FieldIndexes
                if field == QueryFilter.allFields, type.field(named: field) == nil {
                    guard !(prod.recordType(named: type.name)?.userFields.contains { $0.indexes.contains(.searchable) } ?? false) else { continue }
                    have = []
                } else if let sys = SystemField(rawValue: field) ?? SystemField(schemaName: field) {
                    have = prod.recordType(named: type.name)?.indexes(of: sys) ?? []
                } else {
                    have = prod.recordType(named: type.name)?.field(named: field)?.indexes ?? []
                }
                guard !have.contains(index) else { continue }
                let key = "\(type.name).\(field).\(index.rawValue)"
                guard seen.insert(key).inserted else { continue }
                problems.append(SchemaCheckProblem(recordType: type.name, field: field,
                                                   message: "queries of \(type.name) use \(field) for \(what), which needs a \(index.names.joined()) index Production does not have: add it in Development and deploy"))
            }
        }
        return problems
    }
}
