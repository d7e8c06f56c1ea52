import StratusModel

/// Every statement on `zones`. A zone row is live while `deleted` is 0; a deleted one keeps its
/// `ZoneDeletionReason` there until the zone is created again, so that requests into it are told why it is gone.
extension ZoneRow {
    private static func key(_ database: DatabaseID) -> [SQLBindable] { [database.scope.rawValue,
            database.ownerRecordName] }

    /// The live zone of this name in `database`.
    static func find(_ s: any SQLSession, _ database: DatabaseID, _ name: String) throws -> ZoneRow? {
        try s.one(findSQL, key(database) + [name]) { ZoneRow(NamedRow($0, identity)) }
    }

    private static let findSQL = "SELECT \(identity.sql) FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted = 0"

    /// The zone with this row id; with `live`, only while it is not deleted.
    static func find(_ s: any SQLSession, id: Int64, live: Bool) throws -> ZoneRow? {
        try s.one("SELECT \(identity.sql) FROM zones WHERE id = ?\(live ? " AND deleted = 0" : "")",
                  [id]) { ZoneRow(NamedRow($0, identity)) }
    }

    /// Whether the zone with this row id is live.
    static func isLive(_ s: any SQLSession, id: Int64) throws -> Bool {
        try s.exists("SELECT 1 FROM zones WHERE id = ? AND deleted = 0", [id])
    }

    /// The database of the zone with this row id (nil: no such zone).
    static func database(_ s: any SQLSession, zoneRowID: Int64) throws -> DatabaseID? {
        let columns = Selection<Column>([.scope, .owner])
        return try s.one("SELECT \(columns.sql) FROM zones WHERE id = ?", [zoneRowID]) { r in
            let row = NamedRow(r, columns)
            return DatabaseScope(rawValue: row.string(.scope) ?? "").map { DatabaseID(scope: $0,
                    ownerRecordName: row.string(.owner) ?? "") }
        } ?? nil
    }

    /// Every database that has a zone row, deleted ones included.
    static func databases(_ s: any SQLSession) throws -> [DatabaseID] {
        let columns = Selection<Column>([.scope, .owner])
        return try s.all("SELECT DISTINCT \(columns.sql) FROM zones", []) { r in
            let row = NamedRow(r, columns)
            return DatabaseScope(rawValue: row.string(.scope) ?? "").map { DatabaseID(scope: $0,
                    ownerRecordName: row.string(.owner) ?? "") }
        }
    }

    /// The live zones of `database`.
    static func live(_ s: any SQLSession, _ database: DatabaseID) throws -> [ZoneRow] {
        try s.all("SELECT \(identity.sql) FROM zones WHERE scope = ? AND owner = ? AND deleted = 0",
                  key(database)) { ZoneRow(NamedRow($0, identity)) }
    }

    /// Every live zone of every database, by row id.
    static func everyLive(_ s: any SQLSession) throws -> [Int64: (database: DatabaseID, name: String)] {
        let columns = Selection<Column>([.id, .scope, .owner, .name])
        var zones: [Int64: (database: DatabaseID, name: String)] = [:]
        try s.each("SELECT \(columns.sql) FROM zones WHERE deleted = 0", []) { r in
            let row = NamedRow(r, columns)
            if let scope = DatabaseScope(rawValue: row.string(.scope) ?? "") {
                zones[row.int64(.id) ?? 0] = (DatabaseID(scope: scope, ownerRecordName: row.string(.owner) ?? ""),
                                              row.string(.name) ?? "")
            }
        }
        return zones
    }

    /// The live zones of `database` by row id, with the schema generation read in the same statement.
    static func liveNames(_ s: any SQLSession, _ database: DatabaseID) throws -> (zones: [Int64: ZoneID],
            generation: Int64?) {
        let columns = Selection<Column>([.id, .name])
        var zones: [Int64: ZoneID] = [:]
        var generation: Int64?
        try s.each("SELECT \(columns.sql), \(SchemaStorage.generationColumn) FROM zones WHERE scope = ? AND owner = ? AND deleted = 0",
                   key(database).map(\.sqlValue)) { r in
            let row = NamedRow(r, columns)
            zones[row.int64(.id) ?? 0] = ZoneID(zoneName: row.string(.name) ?? "",
                                                ownerRecordName: database.ownerRecordName)
            generation = r.int64(row.end)
        }
        return (zones, generation)
    }

    /// The live zones of `database` in the order `zones/list` answers them (the default zone first, then by name,
    /// byte-wise on both engines), each with the name of its zone-wide share (`CKRecordZone.share`).
    static func listed(_ s: any SQLSession, _ database: DatabaseID) throws -> [(zone: ZoneRow, share: String?)] {
        let columns = Selection<Column>(identity.columns, as: "z")
        return try s.all("""
            SELECT \(columns.sql), sh.record_name FROM zones z
            LEFT JOIN shares sh ON sh.zone_id = z.id AND sh.root_name IS NULL
            WHERE z.scope = ? AND z.owner = ? AND z.deleted = 0
            ORDER BY CASE WHEN z.name = '_defaultZone' THEN 0 ELSE 1 END, \(s.dialect.byteOrder("z.name"))
            """, key(database)) { r in
            let row = NamedRow(r, columns)
            return (ZoneRow(row), r.string(row.end))
        }
    }

    /// The zones of `database` changed after `since` (deleted ones too, with their `deleted` reason), in the order
    /// they changed, at most `limit`. The default zone is left out: it is never created or deleted as far as a
    /// client can tell.
    static func changed(_ s: any SQLSession, _ database: DatabaseID, since: Int64,
                        limit: Int) throws -> [(zone: ZoneRow, deleted: Int)] {
        let columns = Selection<Column>(identity.columns + [.deleted])
        return try s.all("""
            SELECT \(columns.sql) FROM zones WHERE scope = ? AND owner = ? AND change_seq > ? AND name <> ?
            ORDER BY change_seq LIMIT ?
            """, key(database) + [since, ZoneID.defaultZoneName, limit]) { r in
            let row = NamedRow(r, columns)
            return (ZoneRow(row), Int(row.int64(.deleted) ?? 0))
        }
    }

    /// Why the zone of this name is deleted, when the reason is one a request is told (purged, encrypted-data reset).
    static func deletionReason(_ s: any SQLSession, _ database: DatabaseID,
                               _ name: String) throws -> ZoneDeletionReason? {
        let columns = Selection<Column>([.deleted])
        return try s.one("SELECT \(columns.sql) FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted IN (?, ?)",
                         key(database) + [name, Int64(ZoneDeletionReason.purged.rawValue),
                                          Int64(ZoneDeletionReason.encryptedDataReset.rawValue)]) {
            NamedRow($0, columns).int64(.deleted)
        }.flatMap { ZoneDeletionReason(rawValue: Int($0)) }
    }

    /// Every database has a default zone; it is made the first time something is written to it.
    static func findOrCreateDefault(_ s: any SQLSession, _ database: DatabaseID,
                                    seq: inout SequenceAllocator) throws -> ZoneRow {
        if let z = try find(s, database, ZoneID.defaultZoneName) { return z }
        try s.execute("""
            INSERT INTO zones(scope, owner, name, atomic, change_seq, created_at) VALUES (?, ?, ?, 0, ?, ?)
            ON CONFLICT(scope, owner, name) DO UPDATE SET deleted = 0, change_seq = excluded.change_seq
            """, database.scope.rawValue, database.ownerRecordName, ZoneID.defaultZoneName, seq.next(), WallClock.nowMillis())
        return try find(s, database, ZoneID.defaultZoneName)!
    }

    /// Makes a custom zone (atomic, as CloudKit's custom zones are), replacing the row a deletion left.
    static func create(_ s: any SQLSession, _ database: DatabaseID, _ name: String,
                       changeSeq: Int64) throws -> ZoneRow {
        try s.execute("DELETE FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted <> 0",
                      (key(database) + [name]).map(\.sqlValue))
        try s.execute("INSERT INTO zones(scope, owner, name, atomic, change_seq, created_at) VALUES (?, ?, ?, 1, ?, ?)",
                      (key(database) + [name, changeSeq, WallClock.nowMillis()]).map(\.sqlValue))
        return try find(s, database, name)!
    }

    /// Moves a zone's change tag (its records changed at `changeSeq`).
    static func setChangeSeq(_ s: any SQLSession, id: Int64, _ changeSeq: Int64) throws {
        try s.enqueue("UPDATE zones SET change_seq = ? WHERE id = ?", changeSeq, id)
    }

    /// Moves the change tag of every zone of `database`, deleted ones too.
    static func setChangeSeq(_ s: any SQLSession, _ database: DatabaseID, _ changeSeq: Int64) throws {
        try s.execute("UPDATE zones SET change_seq = ? WHERE scope = ? AND owner = ?",
                      ([changeSeq] + key(database)).map(\.sqlValue))
    }

    /// Marks a zone deleted for `reason`; the deletion is its change at `changeSeq`.
    static func markDeleted(_ s: any SQLSession, id: Int64, _ reason: ZoneDeletionReason, changeSeq: Int64) throws {
        try s.execute("UPDATE zones SET deleted = ?, change_seq = ? WHERE id = ?", Int64(reason.rawValue), changeSeq,
                      id)
    }

    /// Marks every zone deleted (a schema reset empties the environment).
    static func markEveryDeleted(_ s: any SQLSession) throws {
        try s.execute("UPDATE zones SET deleted = 1", [SQLValue]())
    }

    /// Removes a zone's row, leaving no trace of it (the default zone, which is made again on first use).
    static func remove(_ s: any SQLSession, id: Int64) throws {
        try s.execute("DELETE FROM zones WHERE id = ?", id)
    }
}
