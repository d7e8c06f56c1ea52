import StratusModel

/// A field as stored: its schema plus the names of the columns and index structures that hold it.
/// Names derive from numeric ids, never from user text, so no identifier from a client reaches SQL.
struct CatalogField: Sendable {
    var id, typeID: Int64
    var schema: FieldSchema

    var name: String { schema.name }
    var type: FieldType { schema.type }

    /// The column holding the value itself (native for scalars, `FieldValueCodec` bytes otherwise).
    var column: String { "f\(id)" }
    /// For references and assets: the record name or checksum, the part that queries and counts need.
    var keyColumn: String { "f\(id)_k" }
    var latitudeColumn: String { "f\(id)_lat" }
    var longitudeColumn: String { "f\(id)_lon" }
    var btreeIndex: String { "t\(typeID)_f\(id)_i" }
    var listTable: String { "t\(typeID)_f\(id)_l" }
    var ftsTable: String { "t\(typeID)_f\(id)_fts" }
    var geoTable: String { "t\(typeID)_f\(id)_geo" }

    /// Whether the main column holds codec bytes rather than a native SQLite value.
    var isEncoded: Bool {
        if type.isList { return true }
        switch type.scalar {
        case .reference, .asset, .location: return true
        default: return false
        }
    }

    var columnCount: Int {
        if type.isList { return 1 }
        switch type.scalar {
        case .reference, .asset: return 2
        case .location: return 3
        default: return 1
        }
    }

    /// Every column this field adds to its record type's table.
    var columns: [(name: String, sqlType: String)] {
        if type.isList { return [(column, "BLOB")] }
        switch type.scalar {
        case .string: return [(column, "TEXT")]
        case .int64: return [(column, "INTEGER")]
        // Seconds since 2001 (see `Timestamp`); columns made before v21 are INTEGER, their values converted.
        case .double, .timestamp: return [(column, "REAL")]
        case .bytes: return [(column, "BLOB")]
        case .reference, .asset: return [(column, "BLOB"), (keyColumn, "TEXT")]
        case .location: return [(column, "BLOB"), (latitudeColumn, "REAL"), (longitudeColumn, "REAL")]
        }
    }

    /// The column that equality and order compare: the value, the reference's record name, …
    var comparableColumn: String {
        if !type.isList && (type.scalar == .reference || type.scalar == .asset) { return keyColumn }
        return column
    }

    var hasBTree: Bool {
        guard !type.isList, !schema.indexes.isDisjoint(with: [.queryable, .sortable]) else { return false }
        return ![.location, .asset, .bytes].contains(type.scalar)
    }
    var hasListTable: Bool { type.isList && schema.indexes.contains(.queryable) && ![.location,
            .asset].contains(type.scalar) }
    var hasFTS: Bool { !type.isList && type.scalar == .string && schema.indexes.contains(.searchable) }
    var hasGeo: Bool { !type.isList && type.scalar == .location && !schema.indexes.isDisjoint(with: [.queryable,
            .sortable]) }

    /// The comparable value a list item contributes to the list's side table.
    static func listKey(_ item: FieldValue) -> SQLValue? {
        switch item {
        case .string(let s): .text(s)
        case .int64(let i): .int64(i)
        case .double(let d): .double(d)
        case .timestamp(let t): .double(t.secondsSinceReferenceDate)
        case .bytes(let b): .blob(b)
        case .reference(let r): .text(r.recordName)
        default: nil
        }
    }
}
