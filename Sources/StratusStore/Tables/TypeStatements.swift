import Foundation
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
        var ftsInsert, ftsDelete, geoInsert, geoDelete, listDelete, listClear, listTable: String
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

        /// `geoDelete`'s arguments for a record whose stored value of the field is `stored`; nil when SQLite's table
        /// holds no row for it (no location stored).
        func geoDeleteArguments(_ id: Int64, stored: Data?) throws -> [SQLValue]? {
            switch dialect {
            case .postgres: return [.int64(id)]
            case .sqlite:
                guard let stored, case .location(let l) = try FieldValueCodec.decode(stored) else { return nil }
                return GeoCellTable.deleteArguments(id, l)
            }
        }

        /// Lists of up to 16 items have their statement text ready; longer ones build it.
        private var listInserts: [String] = []

        func listInsert(count: Int) -> String {
            count < listInserts.count ? listInserts[count] : Self.listInsert(listTable, count)
        }

        /// The list insert as a head, one row's tuple and a tail, for many rows in one statement.
        var listRows: (head: String, tuple: String,
                       tail: String) { ("INSERT INTO \(listTable)(value, record_id) VALUES ", "(?, ?)",
                                        " ON CONFLICT DO NOTHING") }

        private static func listInsert(_ table: String, _ count: Int) -> String {
            "INSERT INTO \(table)(value, record_id) VALUES " + Array(repeating: "(?, ?)",
                                                                     count: count).joined(separator: ", ") + " ON CONFLICT DO NOTHING"
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
            listClear = "DELETE FROM \(f.listTable) WHERE record_id = ?"
            if f.hasListTable { listInserts = (0...16).map { Self.listInsert(f.listTable, $0) } }
        }
    }

    init(_ type: CatalogType, _ dialect: SQLDialect) {
        let fieldColumns = type.fields.flatMap { $0.columns.map(\.name) }
        let insertColumns = Array(CatalogType.systemColumns.dropFirst()) + fieldColumns
        insert = "INSERT INTO \(type.table)(\(insertColumns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))"
        insertWithID = "INSERT INTO \(type.table)(id, \(insertColumns.joined(separator: ", "))) VALUES (?, \(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))"
        insertRows = ("INSERT INTO \(type.table)(id, \(insertColumns.joined(separator: ", "))) VALUES ",
                      "(?, \(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))")
        let sets = (["change_tag", "modified_ts", "modified_by",
                     "modified_device"] + fieldColumns).map { "\($0) = ?" }.joined(separator: ", ")
        update = "UPDATE \(type.table) SET \(sets) WHERE id = ?"
        indexedFields = type.fields.filter { $0.hasFTS || $0.hasGeo || $0.hasListTable }
        for f in indexedFields { fieldIndexes[f.id] = FieldIndexStatements(f, dialect) }
        selectByID = "SELECT \(RecordRowCodec.selectList(type, fields: type.fields)) FROM \(type.table) t WHERE t.id = ?"
    }

    /// The rows of `ids` records of `type` by id, with `fields` (the system columns first, `RecordColumn`).
    static func select(_ type: CatalogType, fields: [CatalogField], ids: Int) -> String {
        "SELECT \(RecordRowCodec.selectList(type, fields: fields)) FROM \(type.table) t WHERE t.id IN (\(Array(repeating: "?", count: ids).joined(separator: ",")))"
    }

    /// `count` ids for new records of `type`, from its table's sequence (PostgreSQL reserves them ahead of the
    /// inserts).
    static func reserveIDs(_ type: CatalogType, _ count: Int, _ s: any SQLSession) throws -> [Int64] {
        try s.all("SELECT nextval('\(type.idSequence)') AS id FROM generate_series(1, CAST(? AS BIGINT))",
                  [Int64(count)]) { NamedRow($0, Self.id).int64(.id) }
    }

    static func delete(_ type: CatalogType, id: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM \(type.table) WHERE id = ?", id)
    }

    /// The zone row id and name of the record of `type` with this id.
    static func place(_ type: CatalogType, id: Int64, _ s: any SQLSession) throws -> (zone: Int64, name: String)? {
        try s.one("SELECT \(Self.place.sql) FROM \(type.table) WHERE id = ?", [id]) { r in
            let row = NamedRow(r, Self.place)
            return (row.int64(.zoneID) ?? 0, row.string(.recordName) ?? "")
        }
    }

    /// Every record of `type` (or of one zone), with all its fields, in no order.
    static func each(_ type: CatalogType, inZone zone: Int64? = nil, _ s: any SQLSession,
                     _ body: (any SQLRow) throws -> Void) throws {
        let sql = "SELECT \(RecordRowCodec.selectList(type, fields: type.fields)) FROM \(type.table) t"
        if let zone { try s.each(sql + " WHERE t.zone_id = ?", [.int64(zone)], body) } else { try s.each(sql, [],
                body) }
    }

    /// A zone's records of `type` in the order of their names, with `fields` (the system columns first), and with
    /// `withLinks` each one's parent and the share rooted at it after them (an export).
    static func eachInZone(_ type: CatalogType, fields: [CatalogField], withLinks links: Bool, zone: Int64,
                           _ s: any SQLSession,
                           _ body: (any SQLRow) throws -> Void) throws {
        let linkSelect = links ? ", k.parent, (SELECT s.record_name FROM shares s WHERE s.zone_id = t.zone_id AND s.root_name = t.record_name)" : ""
        let linkJoin = links ? " LEFT JOIN record_links k ON k.zone_id = t.zone_id AND k.record_name = t.record_name" : ""
        let indexed = s.dialect == .sqlite ? " INDEXED BY \(type.table)_name" : ""
        try s.each("""
            SELECT \(RecordRowCodec.selectList(type, fields: fields))\(linkSelect) FROM \(type.table) t\(indexed)\(linkJoin)
            WHERE t.zone_id = ? ORDER BY t.record_name
            """, [.int64(zone)], body)
    }

    /// Drops a field's B-tree index (a bulk load builds it again after).
    static func dropBTree(_ f: CatalogField, _ s: any SQLSession) throws {
        try s.script("DROP INDEX IF EXISTS \(f.btreeIndex)")
    }

    /// A type's records counted by zone row id.
    static func countsByZone(_ type: CatalogType, _ s: any SQLSession) throws -> [(zone: Int64, count: Int64)] {
        try s.all("SELECT zone_id, count(*) FROM \(type.table) GROUP BY zone_id") { r in
            let row = NamedRow(r, Self.zone)
            return (row.int64(.zoneID) ?? 0, r.int64(row.end) ?? 0)
        }
    }

    /// Every stored value of one field of a type's table (NULLs left out).
    static func storedValues(of f: CatalogField, table: String, _ s: any SQLSession) throws -> [Data] {
        try s.all("SELECT \(f.column) AS value FROM \(table) WHERE \(f.column) IS NOT NULL") { NamedRow($0,
                Self.value).data(.value) }
    }

    /// A record's id, named as a record type's table names it (its fields' columns are the schema's,
    /// `CatalogField.column`).
    enum IDColumn: String, TableColumn {
        case id, value, zoneID = "zone_id", recordName = "record_name"
    }

    private static let zone = Selection<IDColumn>([.zoneID])
    private static let value = Selection<IDColumn>([.value])

    private static let id = Selection<IDColumn>([.id])
    private static let place = Selection<IDColumn>([.zoneID, .recordName])

    /// A zone's records of `type`: each one's id and the stored values of `fields` (read whole before the caller
    /// deletes: PostgreSQL streams a result over the connection the deletes need).
    static func zoneValues(_ type: CatalogType, fields: [CatalogField], zone: Int64,
                           _ s: any SQLSession) throws -> [(id: Int64, values: [Data?])] {
        try s.all("SELECT id, \(fields.map(\.column).joined(separator: ", ")) FROM \(type.table) WHERE zone_id = ?",
                  [zone]) { r in
            let row = NamedRow(r, Self.id)
            return (row.int64(.id) ?? 0, fields.indices.map { r.data(row.end + $0) })
        }
    }

    /// Deletes a zone's records of `type` (their index rows are the caller's to delete first).
    static func deleteZone(_ type: CatalogType, zone: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM \(type.table) WHERE zone_id = ?", zone)
    }

    /// Drops a record type's table (its index tables are dropped field by field, `SchemaStorage.dropStructures`).
    static func drop(_ table: String, _ s: any SQLSession) throws {
        try s.script("DROP TABLE \(table)")
    }
}
