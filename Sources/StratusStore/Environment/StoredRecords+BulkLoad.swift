import StratusModel

/// Bulk loading into an empty record type (`stratus records import`): the B-tree indexes of its queryable and
/// sortable fields are dropped for the load, and its full-text, location and list entries are not written record
/// by record; all of them are built from the loaded rows afterwards in one pass each, instead of one random
/// insertion at a time. While the load lasts, filters on the type's full-text, location and list fields do not
/// see the records loaded so far (the other filters only run slower). Which types are deferred is kept in the
/// database, so a load that dies is completed when the environment is next opened.
extension StoredRecords {
    static let deferredPrefix = "deferred_indexes:"

    /// Whether a record type has no records (or does not exist yet).
    public func typeIsEmpty(_ typeName: String) throws(StratusError) -> Bool {
        try read { db, catalog in
            guard let t = catalog.type(named: typeName) else { return true }
            return try RecordCounts.total(db, type: t.id) == 0
        }
    }

    /// Drops the type's field B-tree indexes until `buildDeferredIndexes`; false when the type does not exist yet.
    public func deferIndexes(of typeName: String) throws(StratusError) -> Bool {
        try write { db, catalog in
            guard let t = catalog.type(named: typeName) else { return false }
            try Meta.set(db, Self.deferredPrefix + String(t.id), 1)
            for f in t.fields where f.hasBTree { try TypeStatements.dropBTree(f, db) }
            deferredTypes.withLock { _ = $0.insert(t.id) }
            return true
        }
    }

    /// Builds every deferred type's indexes as its schema declares them now (a field that gained or lost an index
    /// during the load included), then refreshes the planner's statistics.
    public func buildDeferredIndexes() throws(StratusError) {
        let built: [Int64] = try write { db, catalog in
            let keys = try Meta.keys(db, prefix: Self.deferredPrefix)
            for key in keys {
                if let id = Int64(key.dropFirst(Self.deferredPrefix.count)), let t = catalog.type(id: id) {
                    // Every index structure of the type, made again from its rows (whatever the load left in them).
                    for f in t.fields where f.hasBTree || f.hasFTS || f.hasGeo || f.hasListTable {
                        try SchemaStorage.dropStructures(f, except: nil, table: t.table, db)
                        try SchemaStorage.createStructures(f, except: nil, table: t.table, db)
                    }
                }
                try Meta.remove(db, key)
            }
            return keys.compactMap { Int64($0.dropFirst(Self.deferredPrefix.count)) }
        }
        deferredTypes.withLock { d in for id in built { d.remove(id) } }
        if !built.isEmpty { try? core.sqlite?.analyze() }
    }
}
