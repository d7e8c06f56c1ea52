import Foundation
import GRDB
import StratusModel

/// Reads the catalog from its tables and turns schema changes into DDL, inside the caller's transaction.
enum SchemaStorage {
    static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'schema_generation'")) ?? 0
    }

    static func bumpGeneration(_ db: Database) throws -> Int64 {
        try db.execute(sql: "UPDATE meta SET value = value + 1 WHERE key = 'schema_generation'")
        return try generation(db)
    }

    static func load(_ db: Database) throws -> Catalog {
        let generation = try generation(db)
        let roles = try String.fetchAll(db, sql: "SELECT name FROM roles ORDER BY position, name")
        var types: [CatalogType] = []
        let typeRows = try Row.fetchAll(db, sql: "SELECT id, name, grants FROM record_types ORDER BY id")
        let fieldRows = try Row.fetchAll(db, sql: """
            SELECT id, type_id, name, scalar, is_list, encrypted, number_preferred, indexes FROM fields ORDER BY type_id, position, id
            """)
        var fieldsByType: [Int64: [Row]] = [:]
        for r in fieldRows { fieldsByType[r[1], default: []].append(r) }
        for row in typeRows {
            let id: Int64 = row[0]
            var type = CatalogType(id: id, name: row[1], fields: [], grants: decodeGrants(row[2]), systemFields: [])
            for f in fieldsByType[id] ?? [] {
                guard let scalar = ScalarType(rawValue: f[3]) else { continue }
                let ft = FieldType(scalar, isList: f[4], encrypted: f[5], numberPreferred: f[6])
                let schema = FieldSchema(name: f[2], type: ft, indexes: FieldIndexes(rawValue: f[7]))
                if schema.isSystem { type.systemFields.append(schema) } else { type.fields.append(CatalogField(id: f[0], typeID: id, schema: schema)) }
            }
            types.append(type)
        }
        var catalog = Catalog(generation: generation, roles: roles, types: types)
        catalog.autoIndexes = try AutoIndexes.load(db)
        return catalog
    }

    static func decodeGrants(_ json: String) -> [String: Permission] {
        guard let d = try? JSONDecoder().decode([String: Int].self, from: Data(json.utf8)) else { return [:] }
        return d.mapValues { Permission(rawValue: $0) }
    }

    static func encodeGrants(_ g: [String: Permission]) -> String {
        let d = g.filter { !$0.value.isEmpty }.mapValues(\.rawValue)
        let enc = JSONEncoder()
        enc.outputFormatting = .sortedKeys
        return String(decoding: (try? enc.encode(d)) ?? Data("{}".utf8), as: UTF8.self)
    }

    // MARK: applying changes

    /// Applies a diff to the stored schema and the physical tables, and returns the new catalog.
    /// The caller holds the write transaction, so a failure leaves nothing half-made.
    static func apply(_ diff: SchemaDiff, to catalog: Catalog, _ db: Database) throws -> Catalog {
        var catalog = catalog
        for change in diff.changes {
            switch change {
            case .addRole(let r):
                try db.execute(sql: "INSERT INTO roles(name, position) VALUES (?, (SELECT count(*) FROM roles))", arguments: [r])
                catalog.roles.append(r)
            case .removeRole(let r):
                try db.execute(sql: "DELETE FROM roles WHERE name = ?", arguments: [r])
                catalog.roles.removeAll { $0 == r }
            case .addRecordType(let t):
                let type = try createType(t, db)
                catalog.types.append(type)
                catalog.reindex()
            case .removeRecordType(let name):
                guard let type = catalog.type(named: name) else { continue }
                try dropType(type, db)
                catalog.types.removeAll { $0.name == name }
                catalog.reindex()
            case .addField(let typeName, let f):
                guard let i = catalog.index[typeName] else { continue }
                if f.isSystem {
                    catalog.types[i].systemFields.append(f)
                    try saveSystemField(f, of: catalog.types[i], db)
                    try syncSystemIndexes(catalog.types[i], db)
                } else {
                    catalog.types[i].fields.append(try addField(f, to: catalog.types[i], db))
                }
            case .removeField(let typeName, let fieldName):
                guard let i = catalog.index[typeName], let f = catalog.types[i].field(named: fieldName) else { continue }
                try dropField(f, of: catalog.types[i], db)
                catalog.types[i].fields.removeAll { $0.name == fieldName }
            case .changeFieldType:
                throw StratusError.badRequest("a field's type never changes")
            case .changeIndexes(let typeName, let fieldName, _, let to):
                guard let i = catalog.index[typeName] else { continue }
                if fieldName.hasPrefix("___") {
                    if let j = catalog.types[i].systemFields.firstIndex(where: { $0.name == fieldName }) {
                        catalog.types[i].systemFields[j].indexes = to
                        if to.isEmpty { catalog.types[i].systemFields.remove(at: j) }
                    } else {
                        catalog.types[i].systemFields.append(FieldSchema(name: fieldName, type: SystemField(schemaName: fieldName)?.fieldType ?? FieldType(.reference), indexes: to))
                    }
                    try db.execute(sql: "DELETE FROM fields WHERE type_id = ? AND name = ?", arguments: [catalog.types[i].id, fieldName])
                    if let f = catalog.types[i].systemFields.first(where: { $0.name == fieldName }) { try saveSystemField(f, of: catalog.types[i], db) }
                    try syncSystemIndexes(catalog.types[i], db)
                } else if let j = catalog.types[i].fields.firstIndex(where: { $0.name == fieldName }) {
                    let old = catalog.types[i].fields[j]
                    var new = old
                    new.schema.indexes = to
                    try db.execute(sql: "UPDATE fields SET indexes = ? WHERE id = ?", arguments: [to.rawValue, old.id])
                    try dropStructures(old, except: new, table: catalog.types[i].table, db)
                    try createStructures(new, except: old, table: catalog.types[i].table, db)
                    catalog.types[i].fields[j] = new
                }
            case .changeGrants(let typeName, let role, _, let to):
                guard let i = catalog.index[typeName] else { continue }
                catalog.types[i].grants[role] = to.isEmpty ? nil : to
                try db.execute(sql: "UPDATE record_types SET grants = ? WHERE id = ?",
                               arguments: [encodeGrants(catalog.types[i].grants), catalog.types[i].id])
            }
        }
        catalog.generation = try bumpGeneration(db)
        // Removing a field or type may have dropped automatic indexes.
        catalog.autoIndexes = try AutoIndexes.load(db)
        return catalog
    }

    static func createType(_ t: RecordTypeSchema, _ db: Database) throws -> CatalogType {
        try db.execute(sql: "INSERT INTO record_types(name, grants) VALUES (?, ?)", arguments: [t.name, encodeGrants(t.grants)])
        let id = db.lastInsertedRowID
        var type = CatalogType(id: id, name: t.name, fields: [], grants: t.grants, systemFields: [])
        try db.execute(sql: """
            CREATE TABLE \(type.table)(
                id INTEGER PRIMARY KEY, zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, change_tag TEXT NOT NULL,
                created_ts INTEGER NOT NULL, created_by TEXT NOT NULL, created_device TEXT NOT NULL,
                modified_ts INTEGER NOT NULL, modified_by TEXT NOT NULL, modified_device TEXT NOT NULL);
            CREATE UNIQUE INDEX \(type.table)_name ON \(type.table)(zone_id, record_name);
            """)
        for f in t.fields {
            if f.isSystem {
                type.systemFields.append(f)
                try saveSystemField(f, of: type, db)
            } else {
                type.fields.append(try addField(f, to: type, db))
            }
        }
        try syncSystemIndexes(type, db)
        return type
    }

    static func dropType(_ type: CatalogType, _ db: Database) throws {
        for f in type.fields where f.type.scalar == .asset { try releaseAssets(of: f, table: type.table, db) }
        for f in type.fields { try dropStructures(f, except: nil, table: type.table, db) }
        // Deleted records stay visible to sync as deletions.
        let rows = try Row.fetchAll(db, sql: "SELECT zone_id, record_name FROM record_log WHERE type_id = ? AND deleted = 0", arguments: [type.id])
        for r in rows {
            let seq = try ChangeSequence.next(db)
            try db.execute(sql: "REPLACE INTO record_log(zone_id, seq, record_name, type_id, record_id, deleted) VALUES (?, ?, ?, ?, 0, 1)",
                           arguments: [r[0], seq, r[1], type.id])
            try db.execute(sql: "UPDATE zones SET change_seq = ? WHERE id = ?", arguments: [seq, r[0]])
        }
        try db.execute(sql: "DELETE FROM cascade_refs WHERE source_type = ?", arguments: [type.id])
        try db.execute(sql: "DELETE FROM record_counts WHERE type_id = ?", arguments: [type.id])
        try db.execute(sql: "DROP TABLE \(type.table)")
        try AutoIndexes.forget(typeID: type.id, db)
        try db.execute(sql: "DELETE FROM record_types WHERE id = ?", arguments: [type.id])
        try db.execute(sql: "DELETE FROM fields WHERE type_id = ?", arguments: [type.id])
    }

    static func saveSystemField(_ f: FieldSchema, of type: CatalogType, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO fields(type_id, name, scalar, is_list, encrypted, number_preferred, indexes, position)
            VALUES (?, ?, ?, ?, 0, 0, ?, -1)
            """, arguments: [type.id, f.name, f.type.scalar.rawValue, f.type.isList, f.indexes.rawValue])
    }

    /// Creates or drops the B-tree indexes behind indexed system fields so they match the declaration.
    static func syncSystemIndexes(_ type: CatalogType, _ db: Database) throws {
        for sys in SystemField.allCases {
            guard sys != .recordName, let column = CatalogType.column(of: sys) else { continue }
            let wanted = !type.indexes(of: sys).isDisjoint(with: [.queryable, .sortable])
            let name = type.systemIndexName(sys)
            if wanted {
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(name) ON \(type.table)(zone_id, \(column))")
            } else {
                try db.execute(sql: "DROP INDEX IF EXISTS \(name)")
            }
        }
    }

    static func addField(_ f: FieldSchema, to type: CatalogType, _ db: Database) throws -> CatalogField {
        let position = type.fields.count
        try db.execute(sql: """
            INSERT INTO fields(type_id, name, scalar, is_list, encrypted, number_preferred, indexes, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [type.id, f.name, f.type.scalar.rawValue, f.type.isList, f.type.encrypted, f.type.numberPreferred,
                             f.indexes.rawValue, position])
        let field = CatalogField(id: db.lastInsertedRowID, typeID: type.id, schema: f)
        for c in field.columns { try db.execute(sql: "ALTER TABLE \(type.table) ADD COLUMN \(c.name) \(c.sqlType)") }
        try createStructures(field, except: nil, table: type.table, db)
        return field
    }

    static func dropField(_ f: CatalogField, of type: CatalogType, _ db: Database) throws {
        if f.type.scalar == .asset { try releaseAssets(of: f, table: type.table, db) }
        try dropStructures(f, except: nil, table: type.table, db)
        try AutoIndexes.dropUsing(field: f.name, of: type, db)
        for c in f.columns { try db.execute(sql: "ALTER TABLE \(type.table) DROP COLUMN \(c.name)") }
        try db.execute(sql: "DELETE FROM fields WHERE id = ?", arguments: [f.id])
    }

    /// Creates the index structures `f` needs that `old` did not have, filling them from existing rows.
    static func createStructures(_ f: CatalogField, except old: CatalogField?, table: String, _ db: Database) throws {
        if f.hasBTree && !(old?.hasBTree ?? false) {
            try db.execute(sql: "CREATE INDEX \(f.btreeIndex) ON \(table)(zone_id, \(f.comparableColumn))")
        }
        if f.hasFTS && !(old?.hasFTS ?? false) {
            try db.execute(sql: "CREATE VIRTUAL TABLE \(f.ftsTable) USING fts5(v, tokenize = 'unicode61 remove_diacritics 2')")
            try db.execute(sql: "INSERT INTO \(f.ftsTable)(rowid, v) SELECT id, \(f.column) FROM \(table) WHERE \(f.column) IS NOT NULL")
        }
        if f.hasGeo && !(old?.hasGeo ?? false) {
            try db.execute(sql: "CREATE VIRTUAL TABLE \(f.geoTable) USING rtree(id, min_lat, max_lat, min_lon, max_lon)")
            try db.execute(sql: """
                INSERT INTO \(f.geoTable)(id, min_lat, max_lat, min_lon, max_lon)
                SELECT id, \(f.latitudeColumn), \(f.latitudeColumn), \(f.longitudeColumn), \(f.longitudeColumn)
                FROM \(table) WHERE \(f.latitudeColumn) IS NOT NULL
                """)
        }
        if f.hasListTable && !(old?.hasListTable ?? false) {
            try db.execute(sql: "CREATE TABLE \(f.listTable)(value, record_id INTEGER NOT NULL, PRIMARY KEY(value, record_id)) WITHOUT ROWID")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, \(f.column) FROM \(table) WHERE \(f.column) IS NOT NULL")
            let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO \(f.listTable)(value, record_id) VALUES (?, ?)")
            while let row = try rows.next() {
                guard case .list(_, let items) = try FieldValueCodec.decode(row[1]) else { continue }
                for item in items { if let key = CatalogField.listKey(item) { try insert.execute(arguments: [key, row[0] as Int64]) } }
            }
        }
    }

    /// Drops the index structures `f` has that `new` no longer needs.
    static func dropStructures(_ f: CatalogField, except new: CatalogField?, table: String, _ db: Database) throws {
        if f.hasBTree && !(new?.hasBTree ?? false) { try db.execute(sql: "DROP INDEX IF EXISTS \(f.btreeIndex)") }
        if f.hasFTS && !(new?.hasFTS ?? false) { try db.execute(sql: "DROP TABLE IF EXISTS \(f.ftsTable)") }
        if f.hasGeo && !(new?.hasGeo ?? false) { try db.execute(sql: "DROP TABLE IF EXISTS \(f.geoTable)") }
        if f.hasListTable && !(new?.hasListTable ?? false) { try db.execute(sql: "DROP TABLE IF EXISTS \(f.listTable)") }
    }

    /// Lowers the reference counts of every asset a field's column points at, before the column goes away.
    static func releaseAssets(of f: CatalogField, table: String, _ db: Database) throws {
        let rows = try Row.fetchAll(db, sql: "SELECT \(f.column) FROM \(table) WHERE \(f.column) IS NOT NULL")
        for row in rows {
            for checksum in try FieldValueCodec.decode(row[0]).assetChecksums {
                try AssetReferences.release(checksum, db)
            }
        }
    }
}
