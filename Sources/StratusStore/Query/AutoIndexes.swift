import Foundation
import GRDB
import StratusModel

/// Stores automatic indexes (`auto_indexes` rows and the SQLite indexes they name) inside a transaction. Every change
/// moves the schema generation, so each process's cached catalog, and with it the query compiler, sees it at once.
enum AutoIndexes {
    static func load(_ db: Database) throws -> [AutoIndex] {
        guard try db.tableExists("auto_indexes") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT spec, pinned, last_used_at FROM auto_indexes ORDER BY name").compactMap { r in
            guard var ai = try? JSONDecoder().decode(AutoIndex.self, from: Data((r[0] as String).utf8)) else { return nil }
            ai.pinned = r[1]
            ai.lastUsedAt = r[2]
            return ai
        }
    }

    /// The index's columns on the type's table: the zone, the equality fields, the order field (nil when a field is
    /// gone or cannot be indexed).
    static func columns(_ ai: AutoIndex, _ type: CatalogType) -> [String]? {
        var out = ["zone_id"]
        for name in ai.equalityFields + (ai.orderField.map { [$0] } ?? []) {
            guard let f = type.field(named: name), f.indexableInComposite else { return nil }
            out.append(f.comparableColumn)
        }
        return out
    }

    /// A name made of the type's id and the columns (never of user text), stable for the same definition.
    static func name(typeID: Int64, columns: [String]) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in columns.joined(separator: ",").utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return "t\(typeID)_auto_" + String(h, radix: 16)
    }

    /// Records an index built on the type's table.
    static func create(_ ai: AutoIndex, _ type: CatalogType, _ db: Database) throws {
        let spec = String(decoding: try JSONEncoder().encode(ai), as: UTF8.self)
        try db.execute(sql: "REPLACE INTO auto_indexes(name, type_id, spec, pinned, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)",
                       arguments: [ai.name, type.id, spec, ai.pinned, ai.createdAt, ai.lastUsedAt])
        _ = try SchemaStorage.bumpGeneration(db)
    }

    static func drop(_ name: String, _ db: Database) throws {
        try db.execute(sql: "DROP INDEX IF EXISTS \(name)")
        try db.execute(sql: "DELETE FROM auto_indexes WHERE name = ?", arguments: [name])
        _ = try SchemaStorage.bumpGeneration(db)
    }

    /// Before a field's columns go: the automatic indexes that use it (SQLite refuses to drop an indexed column).
    static func dropUsing(field: String, of type: CatalogType, _ db: Database) throws {
        for ai in try load(db) where ai.recordType == type.name && (ai.equalityFields.contains(field) || ai.orderField == field) {
            try drop(ai.name, db)
        }
    }

    /// A type's table is going: its indexes go with it; only the rows are left to remove.
    static func forget(typeID: Int64, _ db: Database) throws {
        guard try db.tableExists("auto_indexes") else { return }
        try db.execute(sql: "DELETE FROM auto_indexes WHERE type_id = ?", arguments: [typeID])
    }
}

extension CatalogField {
    /// Whether one column holds a comparable scalar (what a composite B-tree index can order by).
    var indexableInComposite: Bool {
        !type.isList && [.string, .int64, .double, .timestamp, .reference].contains(type.scalar)
    }
}
