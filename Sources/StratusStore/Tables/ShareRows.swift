import Foundation
import StratusModel

/// `shares` and `share_participants`: a share record's row and who takes part in it. Every statement on them is
/// here and in `ShareRows+Writes.swift`; the records a share covers are `RecordLinks`'.
enum ShareRows {
    enum Column: String, TableColumn {
        case id, fields, zoneID = "zone_id", recordName = "record_name", rootName = "root_name"
        case shortGUID = "short_guid", publicPermission = "public_permission", changeTag = "change_tag"
        case createdAt = "created_ts", createdBy = "created_by", modifiedAt = "modified_ts"
        case modifiedBy = "modified_by"
    }

    enum ParticipantColumn: String, TableColumn {
        case user, email, permission, type, status, position, shareID = "share_id"
    }

    private static let share = Selection<Column>([.id, .zoneID, .recordName, .rootName, .shortGUID, .publicPermission,
                                                  .changeTag,
                                                  .createdAt, .createdBy, .modifiedAt, .modifiedBy, .fields])

    /// A share row as read (its participants are read after, once the row's statement is done).
    private struct ShareRow {
        var id: Int64, zoneRowID: Int64, share: Share
    }

    private static func shareRow(_ r: any SQLRow, zone: ZoneID?) -> ShareRow {
        let row = NamedRow(r, share)
        var share = Share(recordName: row.string(.recordName) ?? "", zoneID: zone ?? .defaultZone,
                          rootRecordName: row.string(.rootName),
                          shortGUID: row.string(.shortGUID) ?? "",
                          publicPermission: SharePermission(rawValue: row.string(.publicPermission) ?? "") ?? .none, recordChangeTag: row.string(.changeTag) ?? "",
                          created: RecordStamp(timestamp: row.int64(.createdAt) ?? 0,
                                               userRecordName: row.string(.createdBy) ?? "", deviceID: "iCloud"),
                          modified: RecordStamp(timestamp: row.int64(.modifiedAt) ?? 0,
                                                userRecordName: row.string(.modifiedBy) ?? "", deviceID: "iCloud"),
                          participants: [])
        share.fields = ShareFields.decode(row.data(.fields))
        return ShareRow(id: row.int64(.id) ?? 0, zoneRowID: row.int64(.zoneID) ?? 0, share: share)
    }

    /// The share selected by `condition`, with its participants.
    private static func one(_ s: any SQLSession, _ condition: String, _ arguments: [SQLBindable],
                            zone: ZoneID?) throws -> ShareRow? {
        guard var row = try s.one("SELECT \(share.sql) FROM shares WHERE \(condition)", arguments, { shareRow($0,
                zone: zone) }) else { return nil }
        row.share.participants = try participants(row.id, s)
        return row
    }

    static func participants(_ shareID: Int64, _ s: any SQLSession) throws -> [ShareParticipant] {
        let columns = Selection<ParticipantColumn>([.user, .email, .permission, .type, .status])
        return try s.all("SELECT \(columns.sql) FROM share_participants WHERE share_id = ? ORDER BY position",
                         [shareID]) { r in
            let row = NamedRow(r, columns)
            return ShareParticipant(userRecordName: row.string(.user) ?? "", emailAddress: row.string(.email),
                                    permission: SharePermission(rawValue: row.string(.permission) ?? "") ?? .readOnly,
                                    type: ShareParticipant.Kind(rawValue: row.string(.type) ?? "") ?? .user,
                                    acceptanceStatus: ShareParticipant.Status(rawValue: row.string(.status) ?? "") ?? .invited)
        }
    }

    /// The accepted participants (owner excepted) of a private zone's shares, and the share of each that covers only
    /// a hierarchy (nil for the zone's share, which covers every record). A public share's public user who was given
    /// no permission is no participant.
    static func acceptedParticipants(zone zoneRow: Int64, _ s: any SQLSession) throws -> [(user: String,
            shareID: Int64?)] {
        let participant = Selection<ParticipantColumn>([.user, .type], as: "p"), of = Selection<Column>([.id, .rootName,
                .publicPermission], as: "s")
        return try s.all("""
            SELECT \(participant.sql), \(of.sql) FROM shares s JOIN share_participants p ON p.share_id = s.id
            WHERE s.zone_id = ? AND p.status = 'ACCEPTED' AND p.type != 'OWNER'
            """, [zoneRow]) { r -> (user: String, shareID: Int64?)? in
            let p = NamedRow(r, participant), share = NamedRow(r, of, offset: p.end)
            if p.string(.type) == "PUBLIC_USER" && share.string(.publicPermission) == "NONE" { return nil }
            return (p.string(.user) ?? "", share.isNull(.rootName) ? nil : share.int64(.id))
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
        guard var row = try one(s, "id = ?", [id], zone: nil), let zone = try ZoneRow.find(s, id: row.zoneRowID,
                live: true) else { return nil }
        row.share.zoneID = zone.zoneID
        return (row.id, row.share, zone)
    }

    /// The share with this short GUID and the zone (an owner's private zone) it lives in.
    static func find(_ s: any SQLSession, shortGUID: String) throws -> (id: Int64, share: Share, zone: ZoneRow)? {
        guard var row = try one(s, "short_guid = ?", [shortGUID], zone: nil), let zone = try ZoneRow.find(s,
                id: row.zoneRowID, live: true) else { return nil }
        row.share.zoneID = zone.zoneID
        return (row.id, row.share, zone)
    }

    /// The accepted shares of `user` (row id, zone, root, effective permission), optionally in one zone name.
    /// A PUBLIC_USER holds what the share's public permission says now, so lowering it applies at once.
    static func accepted(_ s: any SQLSession, user: String, zoneName: String? = nil) throws -> [(shareID: Int64,
            zone: ZoneRow, root: String?, permission: SharePermission)] {
        let shareColumns = Selection<Column>([.id, .rootName, .publicPermission], as: "s")
        let participant = Selection<ParticipantColumn>([.permission, .type], as: "p")
        let zone = Selection<ZoneRow.Column>(ZoneRow.identity.columns, as: "z")
        var sql = """
            SELECT \(shareColumns.sql), \(participant.sql), \(zone.sql)
            FROM share_participants p JOIN shares s ON s.id = p.share_id JOIN zones z ON z.id = s.zone_id
            WHERE p."user" = ? AND p.status = 'ACCEPTED' AND z.deleted = 0 AND z.owner <> ?
            """
        // A share's owner is one of its accepted participants, but their zone stays in their private database: the
        // shared database holds what others share with the user, as in CloudKit.
        var args: [SQLBindable] = [user, user]
        if let zoneName { sql += " AND z.name = ?"; args.append(zoneName) }
        return try s.all(sql, args) { r in
            let s = NamedRow(r, shareColumns), p = NamedRow(r, participant, offset: s.end), z = NamedRow(r, zone,
                    offset: p.end)
            let own = SharePermission(rawValue: p.string(.permission) ?? "") ?? .readOnly
            let isPublic = p.string(.type) == ShareParticipant.Kind.publicUser.rawValue
            let permission = isPublic ? (SharePermission(rawValue: s.string(.publicPermission) ?? "") ?? .none) : own
            guard permission != .none else { return nil }
            return (s.int64(.id) ?? 0, ZoneRow(z), s.string(.rootName), permission)
        }
    }
}
