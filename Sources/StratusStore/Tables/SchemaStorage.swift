import Foundation
import StratusModel

/// The catalog's tables (`record_types`, `fields`, `roles`) and the DDL of each record type's table and index
/// tables: reads the catalog and turns schema changes into statements, inside the caller's transaction.
enum SchemaStorage {
    enum TypeColumn: String, TableColumn {
        case id, name, grants
    }

    enum FieldColumn: String, TableColumn {
        case id, name, scalar, encrypted, indexes, position, typeID = "type_id", isList = "is_list", numberPreferred = "number_preferred"
    }

    enum RoleColumn: String, TableColumn {
        case name, position
    }

    /// A record's id and one field's stored value, as a field's own structures are filled from its type's table.
    enum ValueColumn: String, TableColumn {
        case id, value
    }

    private static let typeRow = Selection<TypeColumn>([.id, .name, .grants])
    private static let fieldRow = Selection<FieldColumn>([.id, .typeID, .name, .scalar, .isList, .encrypted,
                                                          .numberPreferred, .indexes])
    private static let storedValue = Selection<ValueColumn>([.id, .value])

    static func generation(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT \(generationColumn)") ?? 0
    }

    /// The generation as a column of another statement (see `EnvironmentStore.readCheckingCatalog`).
    static let generationColumn = Meta.column(.schemaGeneration)

    static func bumpGeneration(_ s: any SQLSession) throws -> Int64 {
        try Meta.add(s, .schemaGeneration, 1) ?? 0
    }

    /// One `fields` row, as `load` reads it.
    private struct FieldRow {
        var id: Int64, typeID: Int64, name: String, scalar: String, isList: Bool, encrypted: Bool, numberPreferred: Bool, indexes: Int
    }

    static func load(_ s: any SQLSession) throws -> Catalog {
        let generation = try generation(s)
        let roles = try s.all("SELECT name FROM roles ORDER BY position, name") { NamedRow($0,
                Selection<RoleColumn>([.name])).string(.name) }
        var types: [CatalogType] = []
        let typeRows = try s.all("SELECT \(typeRow.sql) FROM record_types ORDER BY id") { r in
            let row = NamedRow(r, typeRow)
            return (row.int64(.id) ?? 0, row.string(.name) ?? "", row.string(.grants) ?? "{}")
        }
        let fieldRows = try s.all("SELECT \(fieldRow.sql) FROM fields ORDER BY type_id, position, id") { r in
            let row = NamedRow(r, fieldRow)
            return FieldRow(id: row.int64(.id) ?? 0, typeID: row.int64(.typeID) ?? 0, name: row.string(.name) ?? "",
                            scalar: row.string(.scalar) ?? "",
                            isList: row.bool(.isList) ?? false, encrypted: row.bool(.encrypted) ?? false, numberPreferred: row.bool(.numberPreferred) ?? false,
                            indexes: Int(row.int64(.indexes) ?? 0))
        }
        var fieldsByType: [Int64: [FieldRow]] = [:]
        for r in fieldRows { fieldsByType[r.typeID, default: []].append(r) }
        for (id, name, grants) in typeRows {
            var type = CatalogType(id: id, name: name, fields: [], grants: decodeGrants(grants), systemFields: [])
            for f in fieldsByType[id] ?? [] {
                guard let scalar = ScalarType(rawValue: f.scalar) else { continue }
                let ft = FieldType(scalar, isList: f.isList, encrypted: f.encrypted, numberPreferred: f.numberPreferred)
                let schema = FieldSchema(name: f.name, type: ft, indexes: FieldIndexes(rawValue: f.indexes))
                if schema.isSystem { type.systemFields.append(schema) } else { type.fields.append(CatalogField(id: f.id,
                        typeID: id, schema: schema)) }
            }
            types.append(type)
        }
        var catalog = Catalog(generation: generation, roles: roles, types: types)
        catalog.autoIndexes = try AutoIndexes.load(s)
        catalog.prepareStatements(s.dialect)
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
    static func apply(_ diff: SchemaDiff, to catalog: Catalog, _ s: any SQLSession) throws -> Catalog {
        var catalog = catalog
        for change in diff.changes {
            switch change {
            case .addRole(let r):
                try s.execute("INSERT INTO roles(name, position) VALUES (?, (SELECT count(*) FROM roles))", r)
                catalog.roles.append(r)
            case .removeRole(let r):
                try s.execute("DELETE FROM roles WHERE name = ?", r)
                catalog.roles.removeAll { $0 == r }
            case .addRecordType(let t):
                let type = try createType(t, s)
                catalog.types.append(type)
                catalog.reindex()
            case .removeRecordType(let name):
                guard let type = catalog.type(named: name) else { continue }
                try dropType(type, s)
                catalog.types.removeAll { $0.name == name }
                catalog.reindex()
            case .addField(let typeName, let f):
                guard let i = catalog.index[typeName] else { continue }
                if f.isSystem {
                    catalog.types[i].systemFields.append(f)
                    try saveSystemField(f, of: catalog.types[i], s)
                    try syncSystemIndexes(catalog.types[i], s)
                } else {
                    catalog.types[i].fields.append(try addField(f, to: catalog.types[i], s))
                }
            case .removeField(let typeName, let fieldName):
                guard let i = catalog.index[typeName], let f = catalog.types[i].field(named: fieldName) else { continue }
                try dropField(f, of: catalog.types[i], s)
                catalog.types[i].fields.removeAll { $0.name == fieldName }
            case .changeFieldType:
                throw StratusError.badRequest("a field's type never changes")
            case .changeIndexes(let typeName, let fieldName, _, let to):
                guard let i = catalog.index[typeName] else { continue }
                try changeIndexes(of: fieldName, to: to, in: &catalog.types[i], s)
            case .changeGrants(let typeName, let role, _, let to):
                guard let i = catalog.index[typeName] else { continue }
                catalog.types[i].grants[role] = to.isEmpty ? nil : to
                try s.execute("UPDATE record_types SET grants = ? WHERE id = ?", encodeGrants(catalog.types[i].grants),
                              catalog.types[i].id)
            }
        }
        catalog.generation = try bumpGeneration(s)
        // Removing a field or type may have dropped automatic indexes.
        catalog.autoIndexes = try AutoIndexes.load(s)
        catalog.prepareStatements(s.dialect)
        return catalog
    }

    /// A field's indexes changed: a system field's are its row (and the type's system indexes), a user field's its
    /// structures (B-tree, full-text table, list table), dropped and made as the change asks.
    private static func changeIndexes(of fieldName: String, to: FieldIndexes, in type: inout CatalogType,
                                      _ s: any SQLSession) throws {
        if fieldName.hasPrefix("___") {
            if let j = type.systemFields.firstIndex(where: { $0.name == fieldName }) {
                type.systemFields[j].indexes = to
                if to.isEmpty { type.systemFields.remove(at: j) }
            } else {
                type.systemFields.append(FieldSchema(name: fieldName,
                                                     type: SystemField(schemaName: fieldName)?.fieldType ?? FieldType(.reference), indexes: to))
            }
            try s.execute("DELETE FROM fields WHERE type_id = ? AND name = ?", type.id, fieldName)
            if let f = type.systemFields.first(where: { $0.name == fieldName }) { try saveSystemField(f, of: type, s) }
            try syncSystemIndexes(type, s)
        } else if let j = type.fields.firstIndex(where: { $0.name == fieldName }) {
            let old = type.fields[j]
            var new = old
            new.schema.indexes = to
            try s.execute("UPDATE fields SET indexes = ? WHERE id = ?", to.rawValue, old.id)
            try dropStructures(old, except: new, table: type.table, s)
            try createStructures(new, except: old, table: type.table, s)
            type.fields[j] = new
        }
    }

    static func createType(_ t: RecordTypeSchema, _ s: any SQLSession) throws -> CatalogType {
        let id = try s.int64("INSERT INTO record_types(name, grants) VALUES (?, ?) RETURNING id", [t.name,
                encodeGrants(t.grants)]) ?? 0
        var type = CatalogType(id: id, name: t.name, fields: [], grants: t.grants, systemFields: [])
        try createTable(type, s)
        for f in t.fields {
            if f.isSystem {
                type.systemFields.append(f)
                try saveSystemField(f, of: type, s)
            } else {
                type.fields.append(try addField(f, to: type, s))
            }
        }
        try syncSystemIndexes(type, s)
        return type
    }

    /// A record type's table with its system columns, before any field's.
    private static func createTable(_ type: CatalogType, _ s: any SQLSession) throws {
        try s.script(s.dialect.ddl("""
            CREATE TABLE \(type.table)(
                id INTEGER PRIMARY KEY, zone_id INTEGER NOT NULL, record_name TEXT NOT NULL, change_tag TEXT NOT NULL,
                created_ts INTEGER NOT NULL, created_by TEXT NOT NULL, created_device TEXT NOT NULL,
                modified_ts INTEGER NOT NULL, modified_by TEXT NOT NULL, modified_device TEXT NOT NULL);
            CREATE UNIQUE INDEX \(type.table)_name ON \(type.table)(zone_id, record_name);
            """))
    }

    /// The tables of a type whose catalog rows exist already (`stratus migrate` copies the catalog, then builds
    /// each type here, copies its rows, then calls `createIndexes`).
    static func createTables(of type: CatalogType, _ s: any SQLSession) throws {
        try createTable(type, s)
        for f in type.fields {
            for c in f.columns { try s.script("ALTER TABLE \(type.table) ADD COLUMN \(c.name) \(s.dialect.columnType(c.sqlType))") }
        }
    }

    /// The indexes and index tables of a type built by `createTables`, filled from its rows.
    static func createIndexes(of type: CatalogType, _ s: any SQLSession) throws {
        for f in type.fields { try createStructures(f, except: nil, table: type.table, s) }
        try syncSystemIndexes(type, s)
    }

    static func dropType(_ type: CatalogType, _ s: any SQLSession) throws {
        for f in type.fields where f.type.scalar == .asset { try releaseAssets(of: f, table: type.table, s) }
        for f in type.fields { try dropStructures(f, except: nil, table: type.table, s) }
        // Deleted records stay visible to sync as deletions.
        let rows = try RecordLog.liveOfType(s, type.id)
        // Each zone's deletions draw from its database's counter (an exclusive write: every counter may be locked).
        var counters: [DatabaseID: SequenceAllocator] = [:]
        var databases: [Int64: DatabaseID] = [:]
        for (zone, name) in rows {
            if databases[zone] == nil { databases[zone] = try ZoneRow.database(s, zoneRowID: zone) }
            guard let database = databases[zone] else { continue }
            if counters[database] == nil { counters[database] = try SequenceAllocator(s, database) }
            let seq = counters[database]!.next()
            try RecordLog.write(s, zone: zone, seq: seq, name: name, typeID: type.id, recordID: 0, deleted: true)
            try ZoneRow.setChangeSeq(s, id: zone, seq)
        }
        for key in counters.keys { try counters[key]!.save(s) }
        try CascadeRefs.clear(s, sourceType: type.id)
        try RecordCounts.clear(s, type: type.id)
        try s.script("DROP TABLE \(type.table)")
        try AutoIndexes.forget(typeID: type.id, s)
        try s.execute("DELETE FROM record_types WHERE id = ?", type.id)
        try s.execute("DELETE FROM fields WHERE type_id = ?", type.id)
    }

    static func saveSystemField(_ f: FieldSchema, of type: CatalogType, _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO fields(type_id, name, scalar, is_list, encrypted, number_preferred, indexes, position)
            VALUES (?, ?, ?, ?, 0, 0, ?, -1)
            """, type.id, f.name, f.type.scalar.rawValue, f.type.isList, f.indexes.rawValue)
    }

    /// Creates or drops the B-tree indexes behind indexed system fields so they match the declaration.
    static func syncSystemIndexes(_ type: CatalogType, _ s: any SQLSession) throws {
        for sys in SystemField.allCases {
            guard sys != .recordName, let column = CatalogType.column(of: sys) else { continue }
            let wanted = !type.indexes(of: sys).isDisjoint(with: [.queryable, .sortable])
            let name = type.systemIndexName(sys)
            if wanted {
                try s.script("CREATE INDEX IF NOT EXISTS \(name) ON \(type.table)(zone_id, \(s.dialect.sortedIndexKey(column, nullable: false)))")
            } else {
                try s.script("DROP INDEX IF EXISTS \(name)")
            }
        }
    }

    static func addField(_ f: FieldSchema, to type: CatalogType, _ s: any SQLSession) throws -> CatalogField {
        let position = type.fields.count
        let id = try s.int64("""
            INSERT INTO fields(type_id, name, scalar, is_list, encrypted, number_preferred, indexes, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
            """, [type.id, f.name, f.type.scalar.rawValue, f.type.isList, f.type.encrypted, f.type.numberPreferred, f.indexes.rawValue, position]) ?? 0
        let field = CatalogField(id: id, typeID: type.id, schema: f)
        for c in field.columns { try s.script("ALTER TABLE \(type.table) ADD COLUMN \(c.name) \(s.dialect.columnType(c.sqlType))") }
        try createStructures(field, except: nil, table: type.table, s)
        return field
    }

    static func dropField(_ f: CatalogField, of type: CatalogType, _ s: any SQLSession) throws {
        if f.type.scalar == .asset { try releaseAssets(of: f, table: type.table, s) }
        try dropStructures(f, except: nil, table: type.table, s)
        try AutoIndexes.dropUsing(field: f.name, of: type, s)
        for c in f.columns { try s.script("ALTER TABLE \(type.table) DROP COLUMN \(c.name)") }
        try s.execute("DELETE FROM fields WHERE id = ?", f.id)
    }

    /// Creates the index structures `f` needs that `old` did not have, filling them from existing rows.
    /// SQLite: FTS5 tables and location cell tables (`GeoCellTable`). PostgreSQL: a `tsvector` table with a GIN index,
    /// a `point` table with
    /// a GiST index. Lists get a side table of their keys on both.
    static func createStructures(_ f: CatalogField, except old: CatalogField?, table: String,
                                 _ s: any SQLSession) throws {
        if f.hasBTree && !(old?.hasBTree ?? false) {
            try s.script("CREATE INDEX \(f.btreeIndex) ON \(table)(zone_id, \(s.dialect.sortedIndexKey(f.comparableColumn)))")
        }
        if f.hasFTS && !(old?.hasFTS ?? false) {
            switch s.dialect {
            case .sqlite:
                try s.script("CREATE VIRTUAL TABLE \(f.ftsTable) USING fts5(v, tokenize = 'unicode61 remove_diacritics 2')")
                try s.execute("INSERT INTO \(f.ftsTable)(rowid, v) SELECT id, \(f.column) FROM \(table) WHERE \(f.column) IS NOT NULL")
            case .postgres:
                try s.script("""
                    CREATE TABLE \(f.ftsTable)(id BIGINT PRIMARY KEY, v TSVECTOR NOT NULL);
                    CREATE INDEX \(f.ftsTable)_v ON \(f.ftsTable) USING GIN (v);
                    INSERT INTO \(f.ftsTable)(id, v) SELECT id, to_tsvector('simple', \(f.column)) FROM \(table) WHERE \(f.column) IS NOT NULL;
                    """)
            }
        }
        if f.hasGeo && !(old?.hasGeo ?? false) {
            switch s.dialect {
            case .sqlite:
                try GeoCellTable.create(f.geoTable, s)
                try GeoCellTable.fill(f.geoTable, from: table, latitude: f.latitudeColumn, longitude: f.longitudeColumn,
                                      s)
            case .postgres:
                // (longitude, latitude): x east, y north.
                try s.script("""
                    CREATE TABLE \(f.geoTable)(id BIGINT PRIMARY KEY, p POINT NOT NULL);
                    CREATE INDEX \(f.geoTable)_p ON \(f.geoTable) USING GIST (p);
                    INSERT INTO \(f.geoTable)(id, p) SELECT id, point(\(f.longitudeColumn), \(f.latitudeColumn)) FROM \(table) WHERE \(f.latitudeColumn) IS NOT NULL;
                    """)
            }
        }
        if f.hasListTable && !(old?.hasListTable ?? false) { try createListTable(f, table: table, s) }
    }

    /// A list field's side table of its keys, filled from the type's rows.
    private static func createListTable(_ f: CatalogField, table: String, _ s: any SQLSession) throws {
        let keyType = s.dialect == .sqlite ? "" : " " + listKeyType(f)
        try s.script(s.dialect.ddl("CREATE TABLE \(f.listTable)(value\(keyType), record_id INTEGER NOT NULL, PRIMARY KEY(value, record_id)) WITHOUT ROWID"))
        // Keys come in record order, a random order for the side table's (value, record_id) B-tree, where past the
        // page cache every insert would read a page. They are gathered a bounded chunk at a time (memory stays
        // flat however many records there are), sorted, and inserted in key order, many per statement (one round
        // trip per key on PostgreSQL).
        var chunk = ListKeyChunk(table: f.listTable, copies: true)
        func add(_ id: Int64, _ data: Data) throws {
            guard case .list(_, let items) = try FieldValueCodec.decode(data) else { return }
            for item in items { if let key = CatalogField.listKey(item) { chunk.keys.append((key, id)) } }
            if chunk.isFull { try chunk.flush(s) }
        }
        let select = "SELECT id, \(f.column) AS value FROM \(table) WHERE \(f.column) IS NOT NULL"
        let read = { (r: any SQLRow) -> (Int64, Data) in
            let row = NamedRow(r, storedValue)
            return (row.int64(.id) ?? 0, row.data(.value) ?? Data())
        }
        switch s.dialect {
        case .sqlite:
            try s.each(select, []) { r in
                let (id, data) = read(r)
                try add(id, data)
            }
        case .postgres:
            // Read first, then write: PostgreSQL streams a result over the connection the inserts need.
            for (id, data) in try s.all(select, [], read) { try add(id, data) }
        }
        try chunk.flush(s)
    }

    /// The PostgreSQL type of a list field's keys (SQLite's side table leaves it untyped).
    static func listKeyType(_ f: CatalogField) -> String {
        switch f.type.scalar {
        case .int64: "BIGINT"
        case .double, .timestamp: "DOUBLE PRECISION"
        case .bytes: "BYTEA"
        default: "TEXT"
        }
    }

    /// Drops the index structures `f` has that `new` no longer needs.
    static func dropStructures(_ f: CatalogField, except new: CatalogField?, table: String,
                               _ s: any SQLSession) throws {
        if f.hasBTree && !(new?.hasBTree ?? false) { try s.script("DROP INDEX IF EXISTS \(f.btreeIndex)") }
        if f.hasFTS && !(new?.hasFTS ?? false) { try s.script("DROP TABLE IF EXISTS \(f.ftsTable)") }
        if f.hasGeo && !(new?.hasGeo ?? false) { try s.script("DROP TABLE IF EXISTS \(f.geoTable)") }
        if f.hasListTable && !(new?.hasListTable ?? false) { try s.script("DROP TABLE IF EXISTS \(f.listTable)") }
    }

    /// Lowers the reference counts of every asset a field's column points at, before the column goes away.
    static func releaseAssets(of f: CatalogField, table: String, _ s: any SQLSession) throws {
        let values = try TypeStatements.storedValues(of: f, table: table, s)
        for value in values {
            for checksum in try FieldValueCodec.decode(value).assetChecksums {
                try AssetRows.release(checksum, s)
            }
        }
    }
}
