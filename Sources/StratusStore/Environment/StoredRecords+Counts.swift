import StratusModel

/// Record counts read from the counters the writer keeps, never by counting records.
extension StoredRecords {
    /// Live records in this environment, over every database.
    public func recordCount() throws(StratusError) -> Int {
        try read { db, _ in Int(try db.int64("SELECT CAST(COALESCE(SUM(count), 0) AS BIGINT) FROM record_counts") ?? 0) }
    }

    /// Live records per zone name of one database.
    public func recordCountsByZone(in database: DatabaseID) throws(StratusError) -> [String: Int] {
        try read { db, _ in
            let rows = try db.all("""
                SELECT z.name, CAST(SUM(c.count) AS BIGINT) FROM record_counts c JOIN zones z ON z.id = c.zone_id
                WHERE z.scope = ? AND z.owner = ? AND z.deleted = 0 GROUP BY z.name
                """, [database.scope.rawValue, database.ownerRecordName]) { ($0.string(0) ?? "", Int($0.int64(1) ?? 0)) }
            return Dictionary(rows, uniquingKeysWith: +)
        }
    }

    /// Each user's private database in this environment: its live zones and records, by owner (the console's Users
    /// page). Users without a private zone are absent.
    public func privateDataByOwner() throws(StratusError) -> [String: (zones: Int, records: Int)] {
        try read { db, _ in
            let rows = try db.all("""
                SELECT z.owner, CAST(COUNT(DISTINCT z.id) AS BIGINT), CAST(COALESCE(SUM(c.count), 0) AS BIGINT)
                FROM zones z LEFT JOIN record_counts c ON c.zone_id = z.id
                WHERE z.scope = ? AND z.deleted = 0 GROUP BY z.owner
                """, [DatabaseScope.private.rawValue]) { ($0.string(0) ?? "", (zones: Int($0.int64(1) ?? 0), records: Int($0.int64(2) ?? 0))) }
            return Dictionary(rows, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Live records per record type name in one zone.
    public func recordCountsByType(in database: DatabaseID, zoneID: ZoneID) throws(StratusError) -> [String: Int] {
        try read { db, catalog in
            let (zoneRow, access) = try SharedZones.resolve(db, database, zoneID)
            guard let zone = zoneRow else { return [:] }
            let pair = { (r: any SQLRow) in (r.int64(0) ?? 0, Int(r.int64(1) ?? 0)) }
            var rows = try db.all("SELECT type_id, count FROM record_counts WHERE zone_id = ?", [zone.id], pair)
            // Through hierarchy shares, only the records they cover.
            if let access, access.zonePermission == nil {
                rows = try db.all("""
                    SELECT l.type_id, COUNT(*) FROM record_links k JOIN record_log l ON l.zone_id = k.zone_id AND l.record_name = k.record_name
                    WHERE k.zone_id = ? AND l.deleted = 0 AND k.share_id IN (\(access.shares.keys.sorted().map(String.init).joined(separator: ","))) GROUP BY l.type_id
                    """, [zone.id], pair)
            }
            var out: [String: Int] = [:]
            for (typeID, count) in rows { if let t = catalog.type(id: typeID) { out[t.name] = count } }
            return out
        }
    }
}
