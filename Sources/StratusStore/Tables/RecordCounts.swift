import StratusModel

/// `record_counts`: live records per zone and type, kept by the writer in the transaction of each change, so that
/// no page or plan counts records. Every statement on it is here.
enum RecordCounts {
    enum Column: String, TableColumn {
        case count, zoneID = "zone_id", typeID = "type_id"
    }

    /// Adds `delta` (negative: removes) to a zone's count of a type.
    static func add(_ s: any SQLSession, zone: Int64, type: Int64, _ delta: Int64) throws {
        try s.enqueue("""
            INSERT INTO record_counts(zone_id, type_id, count) VALUES (?, ?, ?)
            ON CONFLICT(zone_id, type_id) DO UPDATE SET count = record_counts.count + excluded.count
            """, zone, type, delta)
    }

    /// Live records of the environment; of one type when `type` is given.
    static func total(_ s: any SQLSession, type: Int64? = nil) throws -> Int64 {
        guard let type else { return try s.int64("SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM record_counts") ?? 0 }
        return try s.int64("SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM record_counts WHERE type_id = ?",
                           [type]) ?? 0
    }

    /// A zone's counts, by type id.
    static func byType(_ s: any SQLSession, zone: Int64) throws -> [(type: Int64, count: Int)] {
        let columns = Selection<Column>([.typeID, .count])
        return try s.all("SELECT \(columns.sql) FROM record_counts WHERE zone_id = ?", [zone]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.typeID) ?? 0, Int(row.int64(.count) ?? 0))
        }
    }

    /// Live records per zone name of one database.
    static func byZoneName(_ s: any SQLSession, _ database: DatabaseID) throws -> [(name: String, count: Int)] {
        try s.all("""
            SELECT z.name, CAST(SUM(c.count) AS BIGINT) AS total FROM record_counts c JOIN zones z ON z.id = c.zone_id
            WHERE z.scope = ? AND z.owner = ? AND z.deleted = 0 GROUP BY z.name
            """, [database.scope.rawValue, database.ownerRecordName]) { r in
            let row = NamedRow(r, Selection<ZoneRow.Column>([.name]))
            return (row.string(.name) ?? "", Int(r.int64(row.end) ?? 0))
        }
    }

    /// Each owner's live private zones and records (owners without a private zone are absent).
    static func privateByOwner(_ s: any SQLSession) throws -> [(owner: String, zones: Int, records: Int)] {
        try s.all("""
            SELECT z.owner, CAST(COUNT(DISTINCT z.id) AS BIGINT), CAST(COALESCE(SUM(c.count), 0) AS BIGINT)
            FROM zones z LEFT JOIN record_counts c ON c.zone_id = z.id
            WHERE z.scope = ? AND z.deleted = 0 GROUP BY z.owner
            """, [DatabaseScope.private.rawValue]) { r in
            let row = NamedRow(r, Selection<ZoneRow.Column>([.owner]))
            return (row.string(.owner) ?? "", Int(r.int64(row.end) ?? 0), Int(r.int64(row.end + 1) ?? 0))
        }
    }

    /// Live records per type among those `shares` cover in a zone (a participant of hierarchy shares counts those).
    static func coveredByType(_ s: any SQLSession, zone: Int64, shares: [Int64]) throws -> [(type: Int64, count: Int)] {
        let columns = Selection<RecordLog.Column>([.typeID], as: "l")
        return try s.all("""
            SELECT \(columns.sql), COUNT(*) FROM record_links k JOIN record_log l ON l.zone_id = k.zone_id AND l.record_name = k.record_name
            WHERE k.zone_id = ? AND l.deleted = 0 AND k.share_id IN (\(shares.sorted().map(String.init).joined(separator: ","))) GROUP BY l.type_id
            """, [zone]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.typeID) ?? 0, Int(r.int64(row.end) ?? 0))
        }
    }

    /// Forgets a zone's counts (its records are gone).
    /// A type's counts by zone row id (`stratus check` holds them against the rows).
    static func byZone(_ s: any SQLSession, type: Int64) throws -> [(zone: Int64, count: Int64)] {
        let columns = Selection<Column>([.zoneID, .count])
        return try s.all("SELECT \(columns.sql) FROM record_counts WHERE type_id = ?", [type]) { r in
            let row = NamedRow(r, columns)
            return (row.int64(.zoneID) ?? 0, row.int64(.count) ?? 0)
        }
    }

    static func clear(_ s: any SQLSession, zone: Int64) throws {
        try s.execute("DELETE FROM record_counts WHERE zone_id = ?", zone)
    }

    /// Forgets a type's counts (the type is dropped).
    static func clear(_ s: any SQLSession, type: Int64) throws {
        try s.execute("DELETE FROM record_counts WHERE type_id = ?", type)
    }
}
