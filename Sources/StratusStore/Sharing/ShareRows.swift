import Foundation
import StratusModel

/// Reads shares, their participants and record links inside a transaction (the one owner of their SQL).
enum ShareRows {
    static let columns = "id, zone_id, record_name, root_name, short_guid, public_permission, change_tag, created_ts, created_by, modified_ts, modified_by, fields"

    /// A share with its row id; `zone` names the zone it lives in.
    /// A share row as read (its participants are read after, once the row's statement is done).
    private struct ShareRow {
        var id: Int64, zoneRowID: Int64, share: Share
    }

    private static func shareRow(_ r: any SQLRow, zone: ZoneID?) -> ShareRow {
        var share = Share(recordName: r.string(2) ?? "", zoneID: zone ?? .defaultZone, rootRecordName: r.string(3), shortGUID: r.string(4) ?? "",
                          publicPermission: SharePermission(rawValue: r.string(5) ?? "") ?? .none, recordChangeTag: r.string(6) ?? "",
                          created: RecordStamp(timestamp: r.int64(7) ?? 0, userRecordName: r.string(8) ?? "", deviceID: "iCloud"),
                          modified: RecordStamp(timestamp: r.int64(9) ?? 0, userRecordName: r.string(10) ?? "", deviceID: "iCloud"),
                          participants: [])
        share.fields = ShareFields.decode(r.data(11))
        return ShareRow(id: r.int64(0) ?? 0, zoneRowID: r.int64(1) ?? 0, share: share)
    }

    /// The share selected by `condition`, with its participants.
    private static func one(_ s: any SQLSession, _ condition: String, _ arguments: [SQLBindable], zone: ZoneID?) throws -> ShareRow? {
        guard var row = try s.one("SELECT \(columns) FROM shares WHERE \(condition)", arguments, { shareRow($0, zone: zone) }) else { return nil }
        row.share.participants = try participants(row.id, s)
        return row
    }

    static func participants(_ shareID: Int64, _ s: any SQLSession) throws -> [ShareParticipant] {
        try s.all(#"SELECT "user", email, permission, type, status FROM share_participants WHERE share_id = ? ORDER BY position"#, [shareID]) { r in
            ShareParticipant(userRecordName: r.string(0) ?? "", emailAddress: r.string(1), permission: SharePermission(rawValue: r.string(2) ?? "") ?? .readOnly,
                             type: ShareParticipant.Kind(rawValue: r.string(3) ?? "") ?? .user,
                             acceptanceStatus: ShareParticipant.Status(rawValue: r.string(4) ?? "") ?? .invited)
        }
    }

    static func find(_ s: any SQLSession, zone: ZoneRow, name: String) throws -> (id: Int64, share: Share)? {
        try one(s, "zone_id = ? AND record_name = ?", [zone.id, name], zone: zone.zoneID).map { ($0.id, $0.share) }
    }

    static func find(_ s: any SQLSession, zone: ZoneRow, root: String) throws -> (id: Int64, share: Share)? {
        try one(s, "zone_id = ? AND root_name = ?", [zone.id, root], zone: zone.zoneID).map { ($0.id, $0.share) }
    }

    /// A share by its row id, in the zone (an owner's private zone) it lives in.
    static func find(_ s: any SQLSession, id: Int64) throws -> (id: Int64, share: Share, zone: ZoneRow)? {
        guard var row = try one(s, "id = ?", [id], zone: nil), let zone = try ZoneRow.find(s, id: row.zoneRowID, live: true) else { return nil }
        row.share.zoneID = zone.zoneID
        return (row.id, row.share, zone)
    }

    /// The share with this short GUID and the zone (an owner's private zone) it lives in.
    static func find(_ s: any SQLSession, shortGUID: String) throws -> (id: Int64, share: Share, zone: ZoneRow)? {
        guard var row = try one(s, "short_guid = ?", [shortGUID], zone: nil), let zone = try ZoneRow.find(s, id: row.zoneRowID, live: true) else { return nil }
        row.share.zoneID = zone.zoneID
        return (row.id, row.share, zone)
    }

    /// Writes a record's link row (its parent and covering share).
    static func setLink(_ s: any SQLSession, zone: Int64, name: String, parent: String?, shareID: Int64?) throws {
        try s.execute("""
            INSERT INTO record_links(zone_id, record_name, parent, share_id) VALUES (?, ?, ?, ?)
            ON CONFLICT(zone_id, record_name) DO UPDATE SET parent = excluded.parent, share_id = excluded.share_id
            """, zone, name, parent, shareID)
    }

    /// A record's `parent` and the share that covers it (nil, nil when it has no link row).
    static func link(_ s: any SQLSession, zone: Int64, name: String) throws -> (parent: String?, shareID: Int64?)? {
        try s.one("SELECT parent, share_id FROM record_links WHERE zone_id = ? AND record_name = ?", [zone, name]) { r in (r.string(0), r.int64(1)) }
    }

    /// Whether any record of the zone has a parent or a share: when not, reads skip the link join altogether.
    static func zoneHasLinks(_ s: any SQLSession, zone: Int64) throws -> Bool {
        try s.exists("SELECT 1 FROM record_links WHERE zone_id = ? LIMIT 1", [zone])
    }

    /// Of `names`, those a set of hierarchy shares covers.
    static func covered(_ s: any SQLSession, zone: Int64, shares: [Int64], names: [String]) throws -> Set<String> {
        guard !shares.isEmpty, !names.isEmpty else { return [] }
        var out: Set<String> = []
        for chunk in stride(from: 0, to: names.count, by: 400).map({ Array(names[$0..<min($0 + 400, names.count)]) }) {
            let sql = "SELECT record_name FROM record_links WHERE zone_id = ? AND share_id IN (\(shares.map(String.init).joined(separator: ","))) AND record_name IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            try s.each(sql, [.int64(zone)] + chunk.map { .text($0) }) { r in out.insert(r.string(0) ?? "") }
        }
        return out
    }

    /// The accepted shares of `user` (row id, zone, root, effective permission), optionally in one zone name.
    /// A PUBLIC_USER holds what the share's public permission says now, so lowering it applies at once.
    static func accepted(_ s: any SQLSession, user: String, zoneName: String? = nil) throws -> [(shareID: Int64, zone: ZoneRow, root: String?, permission: SharePermission)] {
        var sql = """
            SELECT s.id, s.root_name, p.permission, p.type, s.public_permission, z.id, z.name, z.owner, z.atomic, z.change_seq
            FROM share_participants p JOIN shares s ON s.id = p.share_id JOIN zones z ON z.id = s.zone_id
            WHERE p."user" = ? AND p.status = 'ACCEPTED' AND z.deleted = 0 AND z.owner <> ?
            """
        // A share's owner is one of its accepted participants, but their zone stays in their private database: the
        // shared database holds what others share with the user, as in CloudKit.
        var args: [SQLBindable] = [user, user]
        if let zoneName { sql += " AND z.name = ?"; args.append(zoneName) }
        return try s.all(sql, args) { r in
            let own = SharePermission(rawValue: r.string(2) ?? "") ?? .readOnly
            let isPublic = r.string(3) == ShareParticipant.Kind.publicUser.rawValue
            let permission = isPublic ? (SharePermission(rawValue: r.string(4) ?? "") ?? .none) : own
            guard permission != .none else { return nil }
            let zone = ZoneRow(id: r.int64(5) ?? 0, zoneID: ZoneID(zoneName: r.string(6) ?? "", ownerRecordName: r.string(7)),
                               atomic: r.bool(8) ?? false, changeSeq: r.int64(9) ?? 0)
            return (r.int64(0) ?? 0, zone, r.string(1), permission)
        }
    }

    /// Records in each participant's shared-database feed that a zone joined or left it. A zone leaves only when no
    /// other accepted share of the participant remains in it.
    static func noteSharedZone(_ s: any SQLSession, _ zone: ZoneRow, users: [String], removed: Bool, seq: inout SequenceAllocator) throws {
        for user in users where user != zone.zoneID.ownerRecordName {
            if removed, try accepted(s, user: user, zoneName: zone.zoneID.zoneName).contains(where: { $0.zone.id == zone.id }) { continue }
            try s.execute("""
                INSERT INTO shared_zone_log("user", zone_id, seq, removed) VALUES (?, ?, ?, ?)
                ON CONFLICT("user", zone_id) DO UPDATE SET seq = excluded.seq, removed = excluded.removed
                """, user, zone.id, seq.next(), removed)
        }
    }
}
