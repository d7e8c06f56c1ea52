import GRDB
import StratusModel

/// Record counts read from the counters the writer keeps, never by counting records.
extension EnvironmentStore {
    /// Live records in this environment, over every database.
    public func recordCount() throws(StratusError) -> Int {
        try read { db, _ in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(count), 0) FROM record_counts") ?? 0 }
    }

    /// Live records per zone name of one database.
    public func recordCountsByZone(in database: DatabaseID) throws(StratusError) -> [String: Int] {
        try read { db, _ in
            let rows = try Row.fetchAll(db, sql: """
                SELECT z.name, SUM(c.count) FROM record_counts c JOIN zones z ON z.id = c.zone_id
                WHERE z.scope = ? AND z.owner = ? AND z.deleted = 0 GROUP BY z.name
                """, arguments: [database.scope.rawValue, database.ownerRecordName])
            return Dictionary(rows.map { ($0[0] as String, $0[1] as Int) }, uniquingKeysWith: +)
        }
    }

    /// Live records per record type name in one zone.
    public func recordCountsByType(in database: DatabaseID, zoneID: ZoneID) throws(StratusError) -> [String: Int] {
        try read { db, catalog in
            let (zoneRow, access) = try resolveZone(db, database, zoneID)
            guard let zone = zoneRow else { return [:] }
            var rows = try Row.fetchAll(db, sql: "SELECT type_id, count FROM record_counts WHERE zone_id = ?", arguments: [zone.id])
            // Through hierarchy shares, only the records they cover.
            if let access, access.zonePermission == nil {
                rows = try Row.fetchAll(db, sql: """
                    SELECT l.type_id, COUNT(*) FROM record_links k JOIN record_log l ON l.zone_id = k.zone_id AND l.record_name = k.record_name
                    WHERE k.zone_id = ? AND l.deleted = 0 AND k.share_id IN (\(access.shares.keys.sorted().map(String.init).joined(separator: ","))) GROUP BY l.type_id
                    """, arguments: [zone.id])
            }
            var out: [String: Int] = [:]
            for r in rows { if let t = catalog.type(id: r[0]) { out[t.name] = r[1] } }
            return out
        }
    }
}
