import StratusModel

/// Record counts read from the counters the writer keeps, never by counting records.
extension StoredRecords {
    /// Live records in this environment, over every database.
    public func recordCount() throws(StratusError) -> Int {
        try read { db, _ in Int(try RecordCounts.total(db)) }
    }

    /// Live records per zone name of one database.
    public func recordCountsByZone(in database: DatabaseID) throws(StratusError) -> [String: Int] {
        try read { db, _ in
            Dictionary(try RecordCounts.byZoneName(db, database), uniquingKeysWith: +)
        }
    }

    /// Each user's private database in this environment: its live zones and records, by owner (the console's Users
    /// page). Users without a private zone are absent.
    public func privateDataByOwner() throws(StratusError) -> [String: (zones: Int, records: Int)] {
        try read { db, _ in
            let rows = try RecordCounts.privateByOwner(db).map { ($0.owner, (zones: $0.zones, records: $0.records)) }
            return Dictionary(rows, uniquingKeysWith: { a, _ in a })
        }
    }

    /// Live records per record type name in one zone.
    public func recordCountsByType(in database: DatabaseID, zoneID: ZoneID) throws(StratusError) -> [String: Int] {
        try read { db, catalog in
            let (zoneRow, access) = try SharedZones.resolve(db, database, zoneID)
            guard let zone = zoneRow else { return [:] }
            // Through hierarchy shares, only the records they cover.
            let rows = if let access, access.zonePermission == nil {
                try RecordCounts.coveredByType(db, zone: zone.id, shares: Array(access.shares.keys))
            } else {
                try RecordCounts.byType(db, zone: zone.id)
            }
            var out: [String: Int] = [:]
            for (typeID, count) in rows { if let t = catalog.type(id: typeID) { out[t.name] = count } }
            return out
        }
    }
}
