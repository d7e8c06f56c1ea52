import GRDB
import StratusModel

/// Bulk loading into an empty record type (`stratus records import`): the B-tree indexes of its queryable and
/// sortable fields are dropped for the load and built afterwards in one sorted pass each, instead of being
/// updated one random insertion at a time. Full-text, location and list structures stay maintained record by record,
/// so every query keeps its results during the load (the dropped indexes only make it slower). Which types are
/// deferred is kept in the database, so a load that dies is completed when the environment is next opened.
extension EnvironmentStore {
    static let deferredPrefix = "deferred_indexes:"

    /// Whether a record type has no records (or does not exist yet).
    public func typeIsEmpty(_ typeName: String) throws(StratusError) -> Bool {
        try read { db, catalog in
            guard let t = catalog.type(named: typeName) else { return true }
            return try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM record_counts WHERE type_id = ?", arguments: [t.id]) == 0
        }
    }

    /// Drops the type's field B-tree indexes until `buildDeferredIndexes`; false when the type does not exist yet.
    public func deferIndexes(of typeName: String) throws(StratusError) -> Bool {
        try write { db, catalog in
            guard let t = catalog.type(named: typeName) else { return false }
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, 1)", arguments: [Self.deferredPrefix + String(t.id)])
            for f in t.fields where f.hasBTree { try db.execute(sql: "DROP INDEX IF EXISTS \(f.btreeIndex)") }
            return true
        }
    }

    /// Builds every deferred type's indexes as its schema declares them now (a field that gained or lost an index
    /// during the load included), then refreshes the planner's statistics.
    public func buildDeferredIndexes() throws(StratusError) {
        let built: Bool = try write { db, catalog in
            let keys = try String.fetchAll(db, sql: "SELECT key FROM meta WHERE key LIKE ?", arguments: [Self.deferredPrefix + "%"])
            for key in keys {
                if let id = Int64(key.dropFirst(Self.deferredPrefix.count)), let t = catalog.type(id: id) {
                    for f in t.fields where f.hasBTree {
                        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(f.btreeIndex) ON \(t.table)(zone_id, \(f.comparableColumn))")
                    }
                }
                try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
            }
            return !keys.isEmpty
        }
        if built { try? guarded { try pool.write { db in try db.execute(sql: "PRAGMA analysis_limit = 400; ANALYZE") } } }
    }
}
