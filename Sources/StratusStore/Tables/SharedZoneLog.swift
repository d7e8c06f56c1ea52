import StratusModel

/// `shared_zone_log`: each participant's shared-database feed, one row per zone that joined or left it, at the
/// sequence number of the owner's database when it did. Every statement on it is here.
enum SharedZoneLog {
    enum Column: String, TableColumn {
        case user, seq, removed, zoneID = "zone_id"
    }

    /// Records in each participant's feed that a zone joined or left it. A zone leaves only when no other accepted
    /// share of the participant remains in it.
    static func note(_ s: any SQLSession, _ zone: ZoneRow, users: [String], removed: Bool,
                     seq: inout SequenceAllocator) throws {
        for user in users where user != zone.zoneID.ownerRecordName {
            if removed, try ShareRows.accepted(s, user: user,
                                               zoneName: zone.zoneID.zoneName).contains(where: { $0.zone.id == zone.id }) { continue }
            try s.execute("""
                INSERT INTO shared_zone_log("user", zone_id, seq, removed) VALUES (?, ?, ?, ?)
                ON CONFLICT("user", zone_id) DO UPDATE SET seq = excluded.seq, removed = excluded.removed
                """, user, zone.id, seq.next(), removed)
        }
    }

    /// A participant's feed, in order: each zone's row id, the change's number, whether the zone left, and the zone.
    static func feed(_ s: any SQLSession, user: String) throws -> [(zoneRowID: Int64, seq: Int64, removed: Bool,
                                                                    zoneID: ZoneID)] {
        let columns = Selection<Column>([.zoneID, .seq, .removed], as: "g")
        let zone = Selection<ZoneRow.Column>([.name, .owner], as: "z")
        return try s.all("""
            SELECT \(columns.sql), \(zone.sql) FROM shared_zone_log g JOIN zones z ON z.id = g.zone_id
            WHERE g."user" = ? ORDER BY g.seq
            """, [user]) { r in
            let g = NamedRow(r, columns), z = NamedRow(r, zone, offset: g.end)
            return (g.int64(.zoneID) ?? 0, g.int64(.seq) ?? 0, g.bool(.removed) ?? false,
                    ZoneID(zoneName: z.string(.name) ?? "", ownerRecordName: z.string(.owner) ?? ""))
        }
    }
}
