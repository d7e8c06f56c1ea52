import Foundation
import StratusModel

/// What changes a container's environments as a whole: deploying Development's schema to Production, importing
/// a schema, resetting Development, and snapshots of an environment to go back to.
public struct ContainerLifecycle: Sendable {
    let registry: EnvironmentRegistry

    private func environment(_ id: ContainerID, _ env: ContainerEnvironment) throws(StratusError) -> EnvironmentStore {
        try registry.environment(id, env)
    }

    /// The changes a deploy would make to Production, with refusals explained.
    public func deployPlan(_ id: ContainerID) throws(StratusError) -> SchemaDiff {
        let dev = try environment(id, .development).schema.current()
        let prod = try environment(id, .production)
        return try prod.schema.diff(to: dev, protecting: prod.schema.current())
    }

    /// Copies the Development schema to Production (types, fields, indexes, roles, grants; never records),
    /// refusing the whole deploy if it would remove or retype anything Production has.
    @discardableResult
    public func deploy(_ id: ContainerID, by who: String) throws(StratusError) -> SchemaDiff {
        let dev = try environment(id, .development).schema.current()
        let prod = try environment(id, .production)
        return try prod.schema.applySchema(dev, protecting: prod.schema.current(), deployedBy: who)
    }

    /// Replaces the Development schema with `schema`, refusing anything that would lose Production's types or fields.
    @discardableResult
    public func importSchema(_ schema: Schema, into id: ContainerID) throws(StratusError) -> SchemaDiff {
        let prod = try environment(id, .production).schema.current()
        return try environment(id, .development).schema.applySchema(schema, protecting: prod)
    }

    public func importPlan(_ schema: Schema, into id: ContainerID) throws(StratusError) -> SchemaDiff {
        let prod = try environment(id, .production).schema.current()
        return try environment(id, .development).schema.diff(to: schema, protecting: prod)
    }

    /// Deletes all Development records and zones; the schema goes back to Production's (empty if never deployed).
    public func resetDevelopment(_ id: ContainerID) throws(StratusError) {
        let prod = try environment(id, .production).schema.current()
        try environment(id, .development).schema.reset(to: prod)
    }

    // MARK: snapshots

    /// Saves an environment's whole state; returns the snapshot's id.
    public func snapshot(_ container: ContainerID, _ environment: ContainerEnvironment,
                         allowProduction: Bool = false) throws(StratusError) -> String {
        if environment == .production && !allowProduction { throw ServerStore.productionAdminRefusal("snapshots") }
        let env = try self.environment(container, environment)
        let id = Secrets.hex(Secrets.randomBytes(12))
        let (file, assets) = try snapshotPaths(container, environment, id)
        try guarded { try FileManager.default.createDirectory(at: file.deletingLastPathComponent(),
                                                              withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]) }
        try env.snapshot(to: file, assetsCopy: assets)
        PrivateFiles.file(file)
        return id
    }

    /// Brings an environment back to a snapshot of it.
    public func restore(_ container: ContainerID, _ environment: ContainerEnvironment, snapshot id: String,
                        allowProduction: Bool = false) throws(StratusError) {
        if environment == .production && !allowProduction { throw ServerStore.productionAdminRefusal("restores") }
        let env = try self.environment(container, environment)
        let (file, assets) = try snapshotPaths(container, environment, id)
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw StratusError(.notFound,
                               "there is no snapshot '\(id)' of \(container.rawValue) (\(environment.rawValue))")
        }
        try env.restore(from: file, assetsCopy: assets)
    }

    private func snapshotPaths(_ container: ContainerID, _ environment: ContainerEnvironment,
                               _ id: String) throws(StratusError) -> (URL, URL) {
        guard let dataDirectory = registry.dataDirectory else {
            throw StratusError.badRequest("snapshots are of SQLite environments (--data); on PostgreSQL use its own tools (pg_dump, a template database)")
        }
        // The id names a file: nothing but what `snapshot` makes.
        guard id.utf8.count == 24, id.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { throw StratusError.badRequest("'\(id.prefix(40))' is not a snapshot id") }
        let dir = dataDirectory.appendingPathComponent("snapshots").appendingPathComponent(container.rawValue).appendingPathComponent(environment.rawValue)
        return (dir.appendingPathComponent("\(id).sqlite"), dir.appendingPathComponent("\(id)-assets"))
    }

    // MARK: schema check

    /// Record types and fields of Development's schema (many made just in time) that Production does not have, and
    /// the queries Development ran (by their shapes) on fields without the index Production needs for them.
    public func schemaCheck(container: ContainerID) throws(StratusError) -> [SchemaCheckProblem] {
        let dev = try environment(container, .development)
        let prod = try environment(container, .production).schema.current()
        let development = try dev.schema.current()
        var problems: [SchemaCheckProblem] = []
        for t in development.recordTypes {
            guard let p = prod.recordType(named: t.name) else {
                problems.append(SchemaCheckProblem(recordType: t.name,
                                                   message: "record type \(t.name) is not in Production's schema: saving one there fails (deploy it)"))
                continue
            }
            for f in t.userFields where p.field(named: f.name) == nil {
                problems.append(SchemaCheckProblem(recordType: t.name, field: f.name,
                                                   message: "field \(t.name).\(f.name) is not in Production's schema: saving it there fails (deploy it)"))
            }
        }
        var seen = Set<String>()
        for shape in try dev.queryShapes.queriedShapes() {
            let type = prod.recordType(named: shape.recordType) ?? development.recordType(named: shape.recordType)
            guard let type else { continue }
            var needs: [(String, FieldIndexes, String)] = shape.equalities.map { ($0, .queryable,
                    "an equality filter") }
            if let r = shape.range { needs.append((r, .sortable, "a range filter")) }
            for o in shape.others {
                let parts = o.split(separator: " ", maxSplits: 1).map(String.init)
                guard parts.count == 2, let c = FilterComparator(rawValue: parts[1]) else { continue }
                needs.append((parts[0], c.requiredIndex, "a \(c.rawValue) filter"))
            }
            for s in shape.sorts { needs.append((String(s.drop { $0 == "-" }).replacingOccurrences(of: "@", with: ""),
                                                 .sortable, "sorting")) }
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
