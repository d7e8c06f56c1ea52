import Foundation
import StratusModel

/// Schema, deploy history and reset of one environment.
public final class SchemaStore: EnvironmentPart {
    let core: EnvironmentDatabase
    /// Custom roles per user, as every authenticated API request needs them (see `roles(of:)`).
    let roleCache = ExpiringCache<String, RoleMembership>()

    init(core: EnvironmentDatabase) {
        self.core = core
    }

    public func current() throws(StratusError) -> Schema { try read { _, c in c.schema } }

    /// The schema as of this store's latest transaction, without opening one: current right after any read
    /// or write through this store (each checks the schema's generation). For a page that has just read.
    public var lastKnownSchema: Schema { core.cachedCatalog.read { $0 }.schema }

    /// Each record type's ENCRYPTED fields (types without any are absent), as the catalog last read knows them.
    public var encryptedFields: [String: Set<String>] { core.cachedCatalog.read { $0.encryptedFields } }

    /// The changes that `target` would make, with refusals for anything that would lose Production data.
    public func diff(to target: Schema, protecting protected: Schema?) throws(StratusError) -> SchemaDiff {
        try target.validate()
        return SchemaDiff.between(try current(), target, protecting: protected)
    }

    /// Makes the schema equal to `target` in one transaction, or changes nothing if any change is refused.
    @discardableResult
    public func applySchema(_ target: Schema, protecting protected: Schema?,
                            deployedBy: String? = nil) throws(StratusError) -> SchemaDiff {
        try target.validate()
        return try write { s, catalog in
            let diff = SchemaDiff.between(catalog.schema, target, protecting: protected)
            try diff.validate()
            if !diff.isEmpty { catalog = try SchemaStorage.apply(diff, to: catalog, s) }
            if let deployedBy {
                try DeploymentRows.insert(by: deployedBy, changes: diff.changes.map(\.description),
                                          at: WallClock.nowMillis(), s)
            }
            return diff
        }
    }

    public func deployments() throws(StratusError) -> [Deployment] {
        try read { s, _ in try DeploymentRows.all(s) }
    }


    /// Deletes every record, zone and asset, and sets the schema to `schema` (Production's, or empty).
    func reset(to schema: Schema) throws(StratusError) {
        try write { s, catalog in
            for type in catalog.types {
                for f in type.fields { try SchemaStorage.dropStructures(f, except: nil, table: type.table, s) }
                try TypeStatements.drop(type.table, s)
                // Automatic indexes' tables (SQLite) go with their type.
                try AutoIndexes.forget(typeID: type.id, s)
            }
            try EnvironmentData.empty(s)
            try ZoneRow.markEveryDeleted(s)
            try ChangeSequence.bumpEveryZone(s)
            catalog = Catalog(generation: try SchemaStorage.bumpGeneration(s), roles: [], types: [])
            let diff = SchemaDiff.between(catalog.schema, schema)
            catalog = try SchemaStorage.apply(diff, to: catalog, s)
            // No records are left: what users use is their subscriptions.
            try UserUsage.recount(s, catalog: catalog)
        }
        roleCache.removeAll()
        try? FileManager.default.removeItem(at: files.root)
    }
}

/// Custom-role membership: which users hold which custom roles in this environment.
extension SchemaStore {
    public func assignRole(_ role: String, to user: String) throws(StratusError) {
        try write { s, catalog in
            guard catalog.roles.contains(role) else { throw StratusError.badRequest("role '\(role)' does not exist in the \(environment.rawValue) schema") }
            try RoleMembers.grant(role, to: user, s)
        }
        roleCache.removeAll()
    }

    public func removeRole(_ role: String, from user: String) throws(StratusError) {
        try write { s, _ in try RoleMembers.revoke(role, from: user, s) }
        roleCache.removeAll()
    }

    /// The custom roles a user holds (only roles the schema still declares).
    /// Every API request with a user asks; answers are cached briefly, for the schema generation they were read with.
    public func roles(of user: String) throws(StratusError) -> Set<String> {
        let generation = core.cachedCatalog.read { $0.generation }
        if let hit = roleCache.value(for: user), hit.generation == generation { return hit.roles }
        let (roles, readWith) = try read { s, catalog in
            (try RoleMembers.roles(of: user, s).intersection(catalog.roles), catalog.generation)
        }
        roleCache.set(RoleMembership(roles: roles, generation: readWith), for: user)
        return roles
    }

    public func members(of role: String) throws(StratusError) -> [String] {
        try read { s, _ in try RoleMembers.users(holding: role, s) }
    }
}
