import StratusModel

/// The SQL text a record type's writes reuse, built once per schema version rather than once per record.
struct TypeStatements {
    var insert: String
    var update: String
    var selectByID: String
    /// Per field id: the statements of its index tables.
    var fieldIndexes: [Int64: FieldIndexStatements] = [:]

    struct FieldIndexStatements {
        var ftsInsert, ftsDelete, geoInsert, geoDelete, listDelete: String
        var listTable: String

        func listInsert(count: Int) -> String {
            "INSERT OR IGNORE INTO \(listTable)(value, record_id) VALUES " + Array(repeating: "(?, ?)", count: count).joined(separator: ", ")
        }

        init(_ f: CatalogField) {
            ftsInsert = "INSERT INTO \(f.ftsTable)(rowid, v) VALUES (?, ?)"
            ftsDelete = "DELETE FROM \(f.ftsTable) WHERE rowid = ?"
            geoInsert = "INSERT INTO \(f.geoTable)(id, min_lat, max_lat, min_lon, max_lon) VALUES (?, ?, ?, ?, ?)"
            geoDelete = "DELETE FROM \(f.geoTable) WHERE id = ?"
            listTable = f.listTable
            listDelete = "DELETE FROM \(f.listTable) WHERE value = ? AND record_id = ?"
        }
    }

    init(_ type: CatalogType) {
        let fieldColumns = type.fields.flatMap { $0.columns.map(\.name) }
        let insertColumns = Array(CatalogType.systemColumns.dropFirst()) + fieldColumns
        insert = "INSERT INTO \(type.table)(\(insertColumns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")))"
        let sets = (["change_tag", "modified_ts", "modified_by", "modified_device"] + fieldColumns).map { "\($0) = ?" }.joined(separator: ", ")
        update = "UPDATE \(type.table) SET \(sets) WHERE id = ?"
        for f in type.fields where f.hasFTS || f.hasGeo || f.hasListTable { fieldIndexes[f.id] = FieldIndexStatements(f) }
        selectByID = "SELECT \(RecordRowCodec.selectList(type, fields: type.fields)) FROM \(type.table) t WHERE t.id = ?"
    }
}
