/// `record_links`: a record's place in a share's hierarchy, its `parent` and the share that covers it, for the
/// records that have either. Every statement on it is here.
enum RecordLinks {
    enum Column: String, TableColumn {
        case parent, zoneID = "zone_id", recordName = "record_name", shareID = "share_id"
    }

    /// Writes a record's link row (its parent and covering share).
    static func set(_ s: any SQLSession, zone: Int64, name: String, parent: String?, shareID: Int64?) throws {
        try s.execute("""
            INSERT INTO record_links(zone_id, record_name, parent, share_id) VALUES (?, ?, ?, ?)
            ON CONFLICT(zone_id, record_name) DO UPDATE SET parent = excluded.parent, share_id = excluded.share_id
            """, zone, name, parent, shareID)
    }

    /// A record's `parent` and the share that covers it (nil when it has no link row).
    static func link(_ s: any SQLSession, zone: Int64, name: String) throws -> (parent: String?, shareID: Int64?)? {
        let columns = Selection<Column>([.parent, .shareID])
        return try s.one("SELECT \(columns.sql) FROM record_links WHERE zone_id = ? AND record_name = ?", [zone,
                name]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.parent), row.int64(.shareID))
        }
    }

    /// Whether any record of the zone has a parent or a share: when not, reads skip the link join altogether.
    static func zoneHasLinks(_ s: any SQLSession, zone: Int64) throws -> Bool {
        try s.exists("SELECT 1 FROM record_links WHERE zone_id = ? LIMIT 1", [zone])
    }

    /// A statement's column that says (1 or 0) whether the zone whose id is `zone` (an expression or `?`) has links.
    static func zoneHasLinksColumn(_ zone: String = "?") -> String {
        "CASE WHEN EXISTS (SELECT 1 FROM record_links WHERE zone_id = \(zone)) THEN 1 ELSE 0 END"
    }

    /// The schema's generation (`Meta`) and whether the zone has links, in one statement: what a query of one zone
    /// needs before it is compiled.
    static func generationAndLinks(_ s: any SQLSession, zone: Int64) throws -> (generation: Int64?, links: Bool) {
        try s.one(generationAndLinksSQL, [zone]) { r in
            let row = NamedRow(r, computed)
            return (row.int64(.generation), row.int64(.links) == 1)
        } ?? (nil, false)
    }

    private static let computed = Selection<Computed>([.generation, .links])
    private static let generationAndLinksSQL = "SELECT \(Meta.column(.schemaGeneration)) AS generation, \(zoneHasLinksColumn()) AS links"

    /// The names `generationAndLinks` gives its two expressions.
    private enum Computed: String, TableColumn { case generation, links }

    /// Of `names`, those a set of hierarchy shares covers.
    static func covered(_ s: any SQLSession, zone: Int64, shares: [Int64], names: [String]) throws -> Set<String> {
        guard !shares.isEmpty, !names.isEmpty else { return [] }
        let columns = Selection<Column>([.recordName])
        var out: Set<String> = []
        for chunk in stride(from: 0, to: names.count, by: 400).map({ Array(names[$0..<min($0 + 400, names.count)]) }) {
            let sql = "SELECT \(columns.sql) FROM record_links WHERE zone_id = ? AND share_id IN (\(shares.map(String.init).joined(separator: ","))) "
                + "AND record_name IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            try s.each(sql, [.int64(zone)] + chunk.map { .text($0) }) { r in out.insert(NamedRow(r,
                    columns).string(.recordName) ?? "") }
        }
        return out
    }

    /// A query's condition that keeps the records (`t`) some of `shares` covers in the zone bound to its `?`.
    static func coveredCondition(shares: [Int64]) -> String {
        "t.record_name IN (SELECT record_name FROM record_links WHERE zone_id = ? AND share_id IN (\(shares.sorted().map(String.init).joined(separator: ","))))"
    }

    /// Whether `ancestor` is `name` or above it in its parent chain.
    static func isAncestor(_ s: any SQLSession, _ ancestor: String, of name: String, zone: Int64) throws -> Bool {
        try s.exists("""
            WITH RECURSIVE up(name, depth) AS (
                SELECT \(s.dialect.textArgument), 0
                UNION SELECT l.parent, up.depth + 1 FROM record_links l JOIN up ON l.zone_id = ? AND l.record_name = up.name
                WHERE l.parent IS NOT NULL AND up.depth < 100000)
            SELECT 1 FROM up WHERE name = ? LIMIT 1
            """, [name, zone, ancestor])
    }

    /// Whether some record below `name` is the root of a share.
    static func subtreeHoldsShareRoot(_ s: any SQLSession, _ name: String, zone: Int64) throws -> Bool {
        try s.exists("""
            WITH RECURSIVE sub(name) AS (
                SELECT record_name FROM record_links WHERE zone_id = ?1 AND parent = ?2
                UNION SELECT l.record_name FROM record_links l JOIN sub ON l.zone_id = ?1 AND l.parent = sub.name)
            SELECT 1 FROM shares WHERE zone_id = ?1 AND root_name IN (SELECT name FROM sub) LIMIT 1
            """, [zone, name])
    }

    /// Sets the covering share of every record below `name`, stopping at records that root shares of their own.
    static func cover(_ s: any SQLSession, below name: String, with shareID: Int64?, zone: Int64) throws {
        try s.execute("""
            WITH RECURSIVE sub(name) AS (
                SELECT record_name FROM record_links WHERE zone_id = ?1 AND parent = ?2
                    AND record_name NOT IN (SELECT root_name FROM shares WHERE zone_id = ?1 AND root_name IS NOT NULL)
                UNION SELECT l.record_name FROM record_links l JOIN sub ON l.zone_id = ?1 AND l.parent = sub.name
                    WHERE l.record_name NOT IN (SELECT root_name FROM shares WHERE zone_id = ?1 AND root_name IS NOT NULL))
            UPDATE record_links SET share_id = ?3 WHERE zone_id = ?1 AND record_name IN (SELECT name FROM sub)
            """, [.int64(zone), .text(name), shareID.sqlValue])
    }

    /// The records a share covered are covered by none (the share is gone).
    static func uncover(_ s: any SQLSession, share: Int64) throws {
        try s.execute("UPDATE record_links SET share_id = NULL WHERE share_id = ?", share)
    }
}
