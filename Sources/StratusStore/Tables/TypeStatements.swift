import StratusModel

/// The SQL text a record type's writes reuse, built once per schema version rather than once per record.
/// Index tables differ by engine: SQLite's FTS5 and location cell tables, PostgreSQL's `tsvector` and `point` tables.
struct TypeStatements {
    var insert: String
    /// `insert` with the id given (PostgreSQL reserves ids ahead; see `RecordWriter.insertRecord`).
    var insertWithID: String
    /// `insertWithID` as a head and one row's tuple, for many records in one statement (PostgreSQL).
    var insertRows: (head: String, tuple: String)
    var update, selectByID: String
    /// Per field id: the statements of its index tables.
    var fieldIndexes: [Int64: FieldIndexStatements] = [:]
    /// The fields with index tables (full-text, geo, list), so a write visits only those.
    var indexedFields: [CatalogField] = []

    struct FieldIndexStatements {
        var ftsInsert, ftsDelete, geoInsert, geoDelete, listDelete, listTable: String
        /// The same inserts as a statement's head and one row's tuple, for many rows in one statement (PostgreSQL).
        var ftsRows, geoRows: (head: String, tuple: String)
        let dialect: SQLDialect

        /// `geoInsert`'s arguments: the point's cell and coordinates on SQLite, a point (longitude is x) on PostgreSQL.
        func geoArguments(_ id: Int64, _ l: Location) -> [SQLValue] {
            switch dialect {
            case .sqlite: GeoCellTable.insertArguments(id, l)
            case .postgres: [.int64(id), .double(l.longitude), .double(l.latitude)]
            }
        }

        /// `geoDelete`'s arguments: SQLite's table is keyed by the cell of the location being removed.
        func geoDeleteArguments(_ id: Int64, _ l: Location) -> [SQLValue] {
            switch dialect {
            case .sqlite: GeoCellTable.deleteArguments(id, l)
            case .postgres: [.int64(id)]
            }
        }

        /// Lists of up to 16 items have their statement text ready; longer ones build it.
        private var listInserts: [String] = []

        func listInsert(count: Int) -> String {
            count < listInserts.count ? listInserts[count] : Self.listInsert(listTable, count)
        }

        /// The list insert as a head, one row's tuple and a tail, for many rows in one statement.
        var listRows: (head: String, tuple: String, tail: String) { ("INSERT INTO \(listTable)(value, record_id) VALUES ", "(?, ?)", " ON CONFLICT DO NOTHING") }

        private static func listInsert(_ table: String, _ count: Int) -> String {
            "INSERT INTO \(table)(value, record_id) VALUES " + Array(repeating: "(?, ?)", count: count).joined(separator: ", ") + " ON CONFLICT DO NOTHING"
        }

        init(_ f: CatalogField, _ dialect: SQLDialect) {
            self.dialect = dialect
            switch dialect {
            case .sqlite:
                ftsInsert = "INSERT INTO \(f.ftsTable)(rowid, v) VALUES (?, ?)"
                ftsRows = ("INSERT INTO \(f.ftsTable)(rowid, v) VALUES ", "(?, ?)")
                geoRows = ("INSERT INTO \(f.geoTable)(cell, id, lat, lon) VALUES ", "(?, ?, ?, ?)")
                ftsDelete = "DELETE FROM \(f.ftsTable) WHERE rowid = ?"
                geoInsert = GeoCellTable.insert(f.geoTable)
                geoDelete = GeoCellTable.delete(f.geoTable)
            case .postgres:
                ftsInsert = "INSERT INTO \(f.ftsTable)(id, v) VALUES (?, to_tsvector('simple', ?))"
                ftsRows = ("INSERT INTO \(f.ftsTable)(id, v) VALUES ", "(?, to_tsvector('simple', ?))")
                geoRows = ("INSERT INTO \(f.geoTable)(id, p) VALUES ", "(?, point(?, ?))")
                ftsDelete = "DELETE FROM \(f.ftsTable) WHERE id = ?"
                geoInsert = "INSERT INTO \(f.geoTable)(id, p) VALUES (?, point(?, ?))"
                geoDelete = "DELETE FROM \(f.geoTable) WHERE id = ?"
            }
            listTable = f.listTable
            listDelete = "DELETE FROM \(f.listTable) WHERE value = ? AND record_id = ?"
            if f.hasListTable { listInserts = (0...16).map { Self.listInsert(f.listTable, $0) } }
        }
    }

    init(_ type: CatalogType, _ dialect: SQLDialect) {
        let fieldColumns = type.fields.flatMap { $0.columns.map(\.name) }
        let insertColumns = Array(CatalogType.systemColumns.dropFirst()) + fieldColumns
        insert = "INSERT INTO \(type.table)(\(insertColumns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))"
        insertWithID = "INSERT INTO \(type.table)(id, \(insertColumns.joined(separator: ", "))) VALUES (?, \(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))"
        insertRows = ("INSERT INTO \(type.table)(id, \(insertColumns.joined(separator: ", "))) VALUES ", "(?, \(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))")
        let sets = (["change_tag", "modified_ts", "modified_by", "modified_device"] + fieldColumns).map { "\($0) = ?" }.joined(separator: ", ")
        update = "UPDATE \(type.table) SET \(sets) WHERE id = ?"
        indexedFields = type.fields.filter { $0.hasFTS || $0.hasGeo || $0.hasListTable }
        for f in indexedFields { fieldIndexes[f.id] = FieldIndexStatements(f, dialect) }
        selectByID = "SELECT \(RecordRowCodec.selectList(type, fields: type.fields)) FROM \(type.table) t WHERE t.id = ?"
    }

    /// Drops a record type's table (its index tables are dropped field by field, `SchemaStorage.dropStructures`).
    static func drop(_ table: String, _ s: any SQLSession) throws {
        try s.script("DROP TABLE \(table)")
    }
}
