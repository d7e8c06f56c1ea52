import Foundation
import StratusModel

/// Stores automatic indexes (`auto_indexes` rows and the index tables and triggers they name) inside a transaction.
/// Every change of what queries may use moves the schema generation, so each process's cached catalog, and with it
/// the query compiler, sees it at once.
///
/// An automatic index `n` on type table `T` is: table `n(id INTEGER PRIMARY KEY, zone_id, c1, …)`, index `n_k` on
/// `n(zone_id, c1, …)` (its entries end with the id, so it is covering and ordered as keyset paging needs), and
/// triggers `n_i`, `n_u`, `n_d` on `T` that copy every insert, update of those columns and delete into `n`. The
/// triggers exist from the first step of a build, so a row written while the build is under way is in `n` whether or
/// not the build's copy has passed it yet.
enum AutoIndexes {
    enum Column: String, TableColumn {
        case name, spec, pinned, bytes, typeID = "type_id", createdAt = "created_at", lastUsedAt = "last_used_at", builtThrough = "built_through"
    }

    /// What the engine's own answers are read as: a sample's average width, a table's bounds.
    enum AnswerColumn: String, TableColumn {
        case answer, low, high
    }

    private static let index = Selection<Column>([.spec, .pinned, .lastUsedAt, .builtThrough, .bytes])

    static func load(_ s: any SQLSession) throws -> [AutoIndex] {
        guard try s.tableExists("auto_indexes") else { return [] }
        return try s.all("SELECT \(index.sql) FROM auto_indexes ORDER BY name") { r in
            let row = NamedRow(r, index)
            guard var ai = try? JSONDecoder().decode(AutoIndex.self,
                                                     from: Data((row.string(.spec) ?? "").utf8)) else { return nil }
            ai.pinned = row.bool(.pinned) ?? false
            ai.lastUsedAt = row.int64(.lastUsedAt) ?? 0
            ai.builtThrough = row.int64(.builtThrough)
            ai.estimatedBytes = row.int64(.bytes) ?? 0
            return ai
        }
    }

    /// Moves an index's `last_used_at` (queries used it).
    static func used(_ name: String, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE auto_indexes SET last_used_at = ? WHERE name = ?", now, name)
    }

    /// Keeps an index's description (`AutoIndex`, as JSON) as a build leaves it.
    static func setSpec(_ ai: AutoIndex, _ s: any SQLSession) throws {
        try s.execute("UPDATE auto_indexes SET spec = ? WHERE name = ?", String(decoding: try JSONEncoder().encode(ai),
                as: UTF8.self), ai.name)
    }

    /// Marks a build complete with its description as the build leaves it; the schema generation moves.
    static func complete(_ ai: AutoIndex, _ s: any SQLSession) throws {
        try s.execute("UPDATE auto_indexes SET spec = ?, built_through = NULL WHERE name = ?",
                      String(decoding: try JSONEncoder().encode(ai), as: UTF8.self), ai.name)
        _ = try SchemaStorage.bumpGeneration(s)
    }

    /// Forgets an index's row (its build failed: there is no index to drop); the schema generation moves.
    static func forgetRow(_ name: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM auto_indexes WHERE name = ?", name)
        _ = try SchemaStorage.bumpGeneration(s)
    }

    /// Pins an index (never dropped for want of use) or unpins it; the schema generation moves.
    static func setPinned(_ name: String, _ pinned: Bool, _ s: any SQLSession) throws {
        try s.execute("UPDATE auto_indexes SET pinned = ? WHERE name = ?", pinned, name)
        _ = try SchemaStorage.bumpGeneration(s)
    }

    /// The lowest and highest id of a type's table (how far a build has come is its place between them).
    static func idRange(of type: CatalogType, _ s: any SQLSession) throws -> (low: Int64, high: Int64)? {
        let bounds = Selection<AnswerColumn>([.low, .high])
        return try s.one("SELECT min(id) AS low, max(id) AS high FROM \(type.table)") { r in
            let row = NamedRow(r, bounds)
            return (row.int64(.low) ?? 0, row.int64(.high) ?? 0)
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

    /// First step of a build: on SQLite the empty index table, its index and its triggers; on either engine the
    /// `auto_indexes` row that says it is being built (`built_through` 0). (PostgreSQL's index is built outside the
    /// transaction, by `PostgresAutoIndexes.build`.)
    static func start(_ ai: AutoIndex, _ type: CatalogType, columns: [String], _ s: any SQLSession) throws {
        let n = ai.name, cols = columns.joined(separator: ", ")
        let newValues = columns.map { "new.\($0)" }.joined(separator: ", ")
        if s.dialect == .sqlite { try s.script("""
            CREATE TABLE \(n)(id INTEGER PRIMARY KEY, \(cols));
            CREATE INDEX \(n)_k ON \(n)(\(cols));
            CREATE TRIGGER \(n)_i AFTER INSERT ON \(type.table) BEGIN INSERT OR REPLACE INTO \(n)(id, \(cols)) VALUES (new.id, \(newValues)); END;
            CREATE TRIGGER \(n)_u AFTER UPDATE OF \(cols) ON \(type.table) BEGIN UPDATE \(n) SET (\(cols)) = (\(newValues)) WHERE id = old.id; END;
            CREATE TRIGGER \(n)_d AFTER DELETE ON \(type.table) BEGIN DELETE FROM \(n) WHERE id = old.id; END;
            """) }
        var building = ai
        building.builtThrough = 0
        let spec = String(decoding: try JSONEncoder().encode(building), as: UTF8.self)
        try s.execute("""
            INSERT INTO auto_indexes(name, type_id, spec, pinned, created_at, last_used_at, built_through, bytes) VALUES (?, ?, ?, ?, ?, ?, 0, ?)
            ON CONFLICT(name) DO UPDATE SET type_id = excluded.type_id, spec = excluded.spec, pinned = excluded.pinned, created_at = excluded.created_at,
                last_used_at = excluded.last_used_at, built_through = 0, bytes = excluded.bytes
            """, ai.name, type.id, spec, ai.pinned, ai.createdAt, ai.lastUsedAt, ai.estimatedBytes)
        _ = try SchemaStorage.bumpGeneration(s)
    }

    /// One step of a build: copies up to `limit` rows after the last one copied. Returns how many it copied and
    /// whether the index is complete (then queries may use it).
    static func fill(_ ai: AutoIndex, _ type: CatalogType, columns: [String], limit: Int,
                     _ s: any SQLSession) throws -> (copied: Int, done: Bool) {
        guard let from = try s.one("SELECT built_through FROM auto_indexes WHERE name = ?", [ai.name], { NamedRow($0,
                Selection<Column>([.builtThrough])).int64(.builtThrough) }) else {
            return (0, true)  // dropped meanwhile, or complete
        }
        let cols = columns.joined(separator: ", ")
        let through = try s.int64("SELECT id FROM \(type.table) WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?", [from,
                limit - 1])
        let copied = try s.execute("INSERT OR IGNORE INTO \(ai.name)(id, \(cols)) SELECT id, \(cols) FROM \(type.table) WHERE id > ? AND id <= ?",
                                   from, through ?? Int64.max)
        if let through {
            try s.execute("UPDATE auto_indexes SET built_through = ? WHERE name = ?", through, ai.name)
            return (copied, false)
        }
        try s.execute("UPDATE auto_indexes SET built_through = NULL WHERE name = ?", ai.name)
        _ = try SchemaStorage.bumpGeneration(s)
        return (copied, true)
    }

    /// Drops an automatic index and its row. On PostgreSQL inside the transaction (a drop is quick; only a build
    /// runs outside one).
    static func drop(_ name: String, _ s: any SQLSession) throws {
        if s.dialect == .sqlite {
            try s.script("""
                DROP TRIGGER IF EXISTS \(name)_i; DROP TRIGGER IF EXISTS \(name)_u; DROP TRIGGER IF EXISTS \(name)_d;
                DROP TABLE IF EXISTS \(name);
                """)
        } else {
            try s.script("DROP INDEX IF EXISTS \(name)")
        }
        try s.execute("DELETE FROM auto_indexes WHERE name = ?", name)
        _ = try SchemaStorage.bumpGeneration(s)
    }

    /// Before a field's columns go: the automatic indexes that use it (SQLite refuses to drop an indexed column).
    static func dropUsing(field: String, of type: CatalogType, _ s: any SQLSession) throws {
        for ai in try load(s) where ai.recordType == type.name && (ai.equalityFields.contains(field) || ai.orderField == field) {
            try drop(ai.name, s)
        }
    }

    /// A type's table is gone, and its triggers (SQLite) or indexes (PostgreSQL) with it: its index tables go too.
    static func forget(typeID: Int64, _ s: any SQLSession) throws {
        guard try s.tableExists("auto_indexes") else { return }
        for name in try s.all("SELECT name FROM auto_indexes WHERE type_id = ?", [typeID], { NamedRow($0,
                Selection<Column>([.name])).string(.name) }) where s.dialect == .sqlite {
            try s.script("DROP TABLE IF EXISTS \(name)")
        }
        try s.execute("DELETE FROM auto_indexes WHERE type_id = ?", typeID)
    }

    /// What an index over `columns` for `rows` records will take on disk, from the widths of a sample of rows: each
    /// entry is held twice (the index table's row and its index's entry), with SQLite's per-cell overhead.
    static func estimatedBytes(type: CatalogType, columns: [String], _ s: any SQLSession) throws -> Int64 {
        let rows = try RecordCounts.total(s, type: type.id)
        let widths = columns.map { s.dialect == .sqlite ? "coalesce(length(CAST(\($0) AS BLOB)), 0)" : "coalesce(pg_column_size(\($0)), 0)" }
            .joined(separator: " + ")
        let average = try s.one("SELECT avg(\(widths)) AS answer FROM (SELECT \(columns.joined(separator: ", ")) FROM \(type.table) LIMIT 1000) AS sample") {
            NamedRow($0, Selection<AnswerColumn>([.answer])).double(.answer)
        } ?? 0
        return Int64((average + 8 + 12) * 2 * Double(rows))
    }
}

extension CatalogField {
    /// Whether one column holds a comparable scalar (what a composite B-tree index can order by).
    var indexableInComposite: Bool {
        !type.isList && [.string, .int64, .double, .timestamp, .reference].contains(type.scalar)
    }
}
