import StratusModel

/// `record_log`: the records' directory and their change feed in one table. A record name has one row per zone,
/// which moves to the sequence number of the name's last change: live (`deleted` 0) it says which type's table
/// holds the record and under which id; deleted, it is the deletion a sync hears of. The statements on it alone
/// are here; the change feed's page and its join with a type's table too.
enum RecordLog {
    enum Column: String, TableColumn {
        case seq, deleted, zoneID = "zone_id", recordName = "record_name", typeID = "type_id"
        case recordID = "record_id"
    }

    /// A live record's place: its type's table and its row there.
    struct Entry: Sendable, Hashable {
        var typeID, recordID: Int64
    }

    private static let entry = Selection<Column>([.recordName, .typeID, .recordID])

    /// The live record of this name in the zone.
    static func live(_ s: any SQLSession, zone: Int64, name: String) throws -> Entry? {
        try s.one("SELECT \(entry.sql) FROM record_log WHERE zone_id = ? AND record_name = ? AND deleted = 0", [zone,
                name]) { r in
            let row = NamedRow(r, entry)
            return Entry(typeID: row.int64(.typeID) ?? 0, recordID: row.int64(.recordID) ?? 0)
        }
    }

    /// Hands `body` the live records among `names` in the zone, in one statement. SQLite is told the name index:
    /// for a list of names its planner chose to scan the zone's whole log by sequence.
    static func eachLive(_ s: any SQLSession, zone: Int64, names: some Collection<String>, _ body: (String,
            Entry) throws -> Void) throws {
        var arguments: [SQLValue] = [.int64(zone)]
        arguments.reserveCapacity(names.count + 1)
        for n in names { arguments.append(.text(n)) }
        try s.eachOfPage(liveSQL(names.count, s.dialect), arguments) { r in
            let row = NamedRow(r, entry)
            try body(row.string(.recordName) ?? "", Entry(typeID: row.int64(.typeID) ?? 0,
                                                          recordID: row.int64(.recordID) ?? 0))
        }
    }

    /// How many names one `eachLive` statement takes at most: a batch's names go in chunks of it.
    static let namesPerStatement = 1_000
    private static let fullLiveSQLite = makeLiveSQL(namesPerStatement, .sqlite)
    private static let fullLivePostgres = makeLiveSQL(namesPerStatement, .postgres)
    /// The statement for a full chunk is made once per dialect (the last, shorter chunk of a batch makes its own).
    private static func liveSQL(_ count: Int, _ dialect: SQLDialect) -> String {
        guard count == namesPerStatement else { return makeLiveSQL(count, dialect) }
        return dialect == .sqlite ? fullLiveSQLite : fullLivePostgres
    }
    private static func makeLiveSQL(_ count: Int, _ dialect: SQLDialect) -> String {
        "SELECT \(entry.sql) FROM record_log\(nameIndex(dialect)) WHERE zone_id = ? AND deleted = 0 AND record_name IN (\(placeholders(count)))"
    }

    /// SQLite's hint to look names up by the name index (PostgreSQL takes none).
    static func nameIndex(_ dialect: SQLDialect) -> String { dialect == .sqlite ? " INDEXED BY record_log_name" : "" }
    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ",") }

    /// The name's row moves to `seq`: a change (where the record now is) or a deletion.
    static func write(_ s: any SQLSession, zone: Int64, seq: Int64, name: String, typeID: Int64, recordID: Int64,
                      deleted: Bool) throws {
        try s.enqueue("""
            INSERT INTO record_log(zone_id, seq, record_name, type_id, record_id, deleted) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(zone_id, record_name) DO UPDATE SET seq = excluded.seq, type_id = excluded.type_id, record_id = excluded.record_id, deleted = excluded.deleted
            """, [.int64(zone), .int64(seq), .text(name), .int64(typeID), .int64(recordID), .int64(deleted ? 1 : 0)])
    }

    /// The live records of a type, by zone and name (a type that is dropped deletes them all).
    static func liveOfType(_ s: any SQLSession, _ typeID: Int64) throws -> [(zone: Int64, name: String)] {
        let columns = Selection<Column>([.zoneID, .recordName])
        return try s.all("SELECT \(columns.sql) FROM record_log WHERE type_id = ? AND deleted = 0", [typeID]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.zoneID) ?? 0, row.string(.recordName) ?? "")
        }
    }

    /// The types that have live records.
    /// Records of `type` with no live entry here (sync would never hand them out).
    static func unlogged(_ type: CatalogType, _ s: any SQLSession) throws -> Int64 {
        try s.int64("""
            SELECT count(*) FROM \(type.table) r WHERE NOT EXISTS (SELECT 1 FROM record_log l
                WHERE l.zone_id = r.zone_id AND l.record_name = r.record_name AND l.deleted = 0 AND l.record_id = r.id AND l.type_id = ?)
            """, [type.id]) ?? 0
    }

    /// Live entries of `type` whose record is not there (sync would hand out what does not exist).
    static func dangling(_ type: CatalogType, _ s: any SQLSession) throws -> Int64 {
        try s.int64("""
            SELECT count(*) FROM record_log l WHERE l.type_id = ? AND l.deleted = 0 AND NOT EXISTS (SELECT 1 FROM \(type.table) r WHERE r.id = l.record_id)
            """, [type.id]) ?? 0
    }

    static func liveTypeIDs(_ s: any SQLSession) throws -> [Int64] {
        let columns = Selection<Column>([.typeID])
        return try s.all("SELECT DISTINCT \(columns.sql) FROM record_log WHERE deleted = 0") { NamedRow($0,
                columns).int64(.typeID) }
    }

    /// Forgets a zone's records and their deletions (the zone goes, and its sync tokens with it).
    static func clear(_ s: any SQLSession, zone: Int64) throws {
        try s.execute("DELETE FROM record_log WHERE zone_id = ?", zone)
    }

    /// One page of a zone's changes after `since`, at most `limit` (one more is read, to tell whether more come),
    /// with what the page's reader needs in the same statement: the schema's generation, and whether any record of
    /// the zone has links (parents, shares). Numbers only, except a deleted record's name, and every entry's name
    /// when `names` (a participant's page, filtered by what their shares cover).
    static func page(_ s: any SQLSession, zone: Int64, since: Int64, limit: Int, names: Bool) throws -> ChangePage {
        var page = ChangePage()
        page.entries.reserveCapacity(limit)
        try s.eachOfPage(pageSQL, [.int64(zone), .int64(zone), .int64(since), .int64(Int64(limit) + 1)]) { r in
            let row = NamedRow(r, pageColumns)
            page.generation = r.int64(row.end)
            page.zoneHasLinks = r.int64(row.end + 1) == 1
            guard page.entries.count < limit else { page.more = true; return }
            let deleted = row.bool(.deleted) ?? false
            page.entries.append(LogEntry(seq: row.int64(.seq) ?? 0, typeID: row.int64(.typeID) ?? 0,
                                         recordID: row.int64(.recordID) ?? 0,
                                         deletedName: deleted ? row.string(.recordName) : nil))
            if names { page.names.append(row.string(.recordName) ?? "") }
        }
        return page
    }

    private static let pageColumns = Selection<Column>([.seq, .typeID, .recordID, .deleted, .recordName])
    private static let pageSQL = """
        SELECT \(pageColumns.sql), \(Meta.column(.schemaGeneration)), \(RecordLinks.zoneHasLinksColumn())
        FROM record_log WHERE zone_id = ? AND seq > ? ORDER BY seq LIMIT ?
        """

    /// A page of `page`.
    struct ChangePage {
        var entries: [LogEntry] = []
        /// Each entry's record name, when asked for.
        var names: [String] = []
        var more = false
        var generation: Int64?
        var zoneHasLinks = false
    }

    /// The live records of one type changed between `first` and `last` in the zone, in the order they changed,
    /// each row `RecordRowCodec`'s select list of `fields`, then (with `links`) the record's parent and the name
    /// of the share whose root it is. Row by row, though a page bounds it: PostgreSQL sends the next rows while
    /// these are encoded, and a client reading a zone page after page waits for both.
    static func eachChanged(_ s: any SQLSession, _ type: CatalogType, fields: [CatalogField], zone: Int64,
                            from first: Int64, to last: Int64, links: Bool,
                            _ body: (any SQLRow) throws -> Void) throws {
        let linkSelect = links ? ", k.parent, (SELECT s.record_name FROM shares s WHERE s.zone_id = t.zone_id AND s.root_name = t.record_name)" : ""
        let linkJoin = links ? " LEFT JOIN record_links k ON k.zone_id = t.zone_id AND k.record_name = t.record_name" : ""
        try s.each("""
            SELECT \(RecordRowCodec.selectList(type, fields: fields))\(linkSelect) FROM record_log l JOIN \(type.table) t ON t.id = l.record_id\(linkJoin)
            WHERE l.zone_id = ? AND l.seq BETWEEN ? AND ? AND l.type_id = ? AND l.deleted = 0 ORDER BY l.seq
            """, [.int64(zone), .int64(first), .int64(last), .int64(type.id)], body)
    }
}
