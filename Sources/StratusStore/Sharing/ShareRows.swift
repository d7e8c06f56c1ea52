import Foundation
import GRDB
import StratusModel

/// Reads shares, their participants and record links inside a transaction (the one owner of their SQL).
enum ShareRows {
    static let columns = "id, zone_id, record_name, root_name, short_guid, public_permission, change_tag, created_ts, created_by, modified_ts, modified_by"

    /// A share with its row id; `zone` names the zone it lives in.
    static func share(_ row: Row, zone: ZoneID, _ db: Database) throws -> (id: Int64, share: Share) {
        let id: Int64 = row[0]
        let share = Share(recordName: row[2], zoneID: zone, rootRecordName: row[3], shortGUID: row[4],
                          publicPermission: SharePermission(rawValue: row[5]) ?? .none, recordChangeTag: row[6],
                          created: RecordStamp(timestamp: row[7], userRecordName: row[8], deviceID: "iCloud"),
                          modified: RecordStamp(timestamp: row[9], userRecordName: row[10], deviceID: "iCloud"),
                          participants: try participants(id, db))
        return (id, share)
    }

    static func participants(_ shareID: Int64, _ db: Database) throws -> [ShareParticipant] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT user, email, permission, type, status FROM share_participants WHERE share_id = ? ORDER BY position"),
                         arguments: [shareID]).map { r in
            ShareParticipant(userRecordName: r[0], emailAddress: r[1], permission: SharePermission(rawValue: r[2]) ?? .readOnly,
                             type: ShareParticipant.Kind(rawValue: r[3]) ?? .user, acceptanceStatus: ShareParticipant.Status(rawValue: r[4]) ?? .invited)
        }
    }

    static func find(_ db: Database, zone: ZoneRow, name: String) throws -> (id: Int64, share: Share)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM shares WHERE zone_id = ? AND record_name = ?"), arguments: [zone.id, name])
            .map { try share($0, zone: zone.zoneID, db) }
    }

    static func find(_ db: Database, zone: ZoneRow, root: String) throws -> (id: Int64, share: Share)? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM shares WHERE zone_id = ? AND root_name = ?"), arguments: [zone.id, root])
            .map { try share($0, zone: zone.zoneID, db) }
    }

    /// The share with this short GUID and the zone (an owner's private zone) it lives in.
    static func find(_ db: Database, shortGUID: String) throws -> (id: Int64, share: Share, zone: ZoneRow)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM shares WHERE short_guid = ?"), arguments: [shortGUID]),
              let zone = try zoneRow(db, id: row[1]) else { return nil }
        let (id, share) = try share(row, zone: zone.zoneID, db)
        return (id, share, zone)
    }

    static func zoneRow(_ db: Database, id: Int64) throws -> ZoneRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT name, owner, atomic, change_seq FROM zones WHERE id = ? AND deleted = 0"), arguments: [id])
            .map { ZoneRow(id: id, zoneID: ZoneID(zoneName: $0[0], ownerRecordName: $0[1]), atomic: $0[2], changeSeq: $0[3]) }
    }

    /// A record's `parent` and the share that covers it (nil, nil when it has no link row).
    static func link(_ s: any SQLSession, zone: Int64, name: String) throws -> (parent: String?, shareID: Int64?)? {
        try s.one("SELECT parent, share_id FROM record_links WHERE zone_id = ? AND record_name = ?", [zone, name]) { r in (r.string(0), r.int64(1)) }
    }

    /// Whether any record of the zone has a parent or a share: when not, reads skip the link join altogether.
    static func zoneHasLinks(_ db: Database, zone: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS(SELECT 1 FROM record_links WHERE zone_id = ?)"), arguments: [zone]) ?? false
    }

    /// Of `names`, those a set of hierarchy shares covers.
    static func covered(_ db: Database, zone: Int64, shares: [Int64], names: [String]) throws -> Set<String> {
        guard !shares.isEmpty, !names.isEmpty else { return [] }
        var out: Set<String> = []
        for chunk in stride(from: 0, to: names.count, by: 400).map({ Array(names[$0..<min($0 + 400, names.count)]) }) {
            let sql = "SELECT record_name FROM record_links WHERE zone_id = ? AND share_id IN (\(shares.map(String.init).joined(separator: ","))) AND record_name IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))"
            out.formUnion(try String.fetchAll(db, sql: sql, arguments: StatementArguments.values([zone.databaseValue] + chunk.map(\.databaseValue))))
        }
        return out
    }

    /// The accepted shares of `user` (row id, zone, root, effective permission), optionally in one zone name.
    /// A PUBLIC_USER holds what the share's public permission says now, so lowering it applies at once.
    static func accepted(_ db: Database, user: String, zoneName: String? = nil) throws -> [(shareID: Int64, zone: ZoneRow, root: String?, permission: SharePermission)] {
        var sql = """
            SELECT s.id, s.root_name, p.permission, p.type, s.public_permission, z.id, z.name, z.owner, z.atomic, z.change_seq
            FROM share_participants p JOIN shares s ON s.id = p.share_id JOIN zones z ON z.id = s.zone_id
            WHERE p.user = ? AND p.status = 'ACCEPTED' AND z.deleted = 0
            """
        var args: [DatabaseValue] = [user.databaseValue]
        if let zoneName { sql += " AND z.name = ?"; args.append(zoneName.databaseValue) }
        return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments.values(args)).compactMap { r in
            let own = SharePermission(rawValue: r[2]) ?? .readOnly
            let isPublic = (r[3] as String) == ShareParticipant.Kind.publicUser.rawValue
            let permission = isPublic ? (SharePermission(rawValue: r[4]) ?? .none) : own
            guard permission != .none else { return nil }
            let zone = ZoneRow(id: r[5], zoneID: ZoneID(zoneName: r[6], ownerRecordName: r[7]), atomic: r[8], changeSeq: r[9])
            return (r[0], zone, r[1], permission)
        }
    }

    /// Records in each participant's shared-database feed that a zone joined or left it. A zone leaves only when no
    /// other accepted share of the participant remains in it.
    static func noteSharedZone(_ db: Database, _ zone: ZoneRow, users: [String], removed: Bool, seq: inout SequenceAllocator) throws {
        for user in users {
            if removed, try accepted(db, user: user, zoneName: zone.zoneID.zoneName).contains(where: { $0.zone.id == zone.id }) { continue }
            try db.execute(sql: "REPLACE INTO shared_zone_log(user, zone_id, seq, removed) VALUES (?, ?, ?, ?)", arguments: [user, zone.id, seq.next(), removed])
        }
    }
}
