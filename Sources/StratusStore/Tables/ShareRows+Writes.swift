import Foundation
import StratusModel

/// The statements that change shares and their participants, and the few that ask about them without reading one.
extension ShareRows {
    /// A new share record's row; returns its id. `root`: the record it shares (nil: the whole zone).
    static func insert(_ s: any SQLSession, zone: Int64, name: String, root: String?, publicPermission: SharePermission,
                       changeTag: String,
                       at now: Int64, by user: String, fields: Data?) throws -> Int64 {
        try s.insert("""
            INSERT INTO shares(zone_id, record_name, root_name, short_guid, public_permission, change_tag, created_ts, created_by, modified_ts, modified_by, fields)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.int64(zone), .text(name), root.sqlValue, .text(ShortGUID.make()), .text(publicPermission.rawValue), .text(changeTag),
                  .int64(now), .text(user), .int64(now), .text(user), fields.map { .blob($0) } ?? .null])
    }

    /// A share's changed row.
    static func update(_ s: any SQLSession, id: Int64, publicPermission: SharePermission, changeTag: String,
                       at now: Int64, by user: String, fields: Data?) throws {
        try s.execute("UPDATE shares SET public_permission = ?, change_tag = ?, modified_ts = ?, modified_by = ?, fields = ? WHERE id = ?",
                      [.text(publicPermission.rawValue), .text(changeTag), .int64(now), .text(user),
                       fields.map { .blob($0) } ?? .null, .int64(id)])
    }

    /// Deletes a share and its participants.
    static func delete(_ s: any SQLSession, id: Int64) throws {
        try s.execute("DELETE FROM share_participants WHERE share_id = ?", id)
        try s.execute("DELETE FROM shares WHERE id = ?", id)
    }

    /// The owner takes part in their own share first, accepted, reading and writing.
    static func addOwner(_ s: any SQLSession, share: Int64, user: String) throws {
        try s.execute(#"INSERT INTO share_participants(share_id, "user", email, permission, type, status, position) VALUES (?, ?, NULL, 'READ_WRITE', 'OWNER', 'ACCEPTED', 0)"#,
                      share, user)
    }

    /// Invites a user (their place after `position`); someone who had left or was removed is invited again, and
    /// someone invited or taking part keeps their status with the permission given now.
    static func invite(_ s: any SQLSession, share: Int64, user: String, email: String?, permission: SharePermission,
                       position: Int64) throws {
        try s.execute("""
            INSERT INTO share_participants(share_id, "user", email, permission, type, status, position) VALUES (?, ?, ?, ?, 'USER', 'INVITED', ?)
            ON CONFLICT(share_id, "user") DO UPDATE SET permission = excluded.permission, email = COALESCE(excluded.email, share_participants.email), type = 'USER',
                status = CASE share_participants.status WHEN 'REMOVED' THEN 'INVITED' ELSE share_participants.status END
            """, share, user, email, permission.rawValue, position)
    }

    /// The place after the share's last participant.
    static func nextPosition(_ s: any SQLSession, share: Int64) throws -> Int64 {
        (try s.int64("SELECT MAX(position) FROM share_participants WHERE share_id = ?", [share]) ?? 0) + 1
    }

    /// An invited participant accepts, as `type` (a PUBLIC_USER when they join through the share's public permission).
    static func accept(_ s: any SQLSession, share: Int64, user: String, as type: ShareParticipant.Kind) throws {
        try s.execute(#"UPDATE share_participants SET status = 'ACCEPTED', type = ? WHERE share_id = ? AND "user" = ?"#,
                      type.rawValue, share, user)
    }

    /// Someone joins through the share's public permission, accepted, after its last participant.
    static func joinPublicly(_ s: any SQLSession, share: Int64, user: String, permission: SharePermission) throws {
        try s.execute("""
            INSERT INTO share_participants(share_id, "user", email, permission, type, status, position)
            VALUES (?, ?, NULL, ?, 'PUBLIC_USER', 'ACCEPTED', (SELECT COALESCE(MAX(position), 0) + 1 FROM share_participants WHERE share_id = ?))
            """, share, user, permission.rawValue, share)
    }

    /// A participant leaves or is removed: their access ends, their row stays (an invitation again brings them back).
    static func remove(_ s: any SQLSession, share: Int64, user: String) throws {
        try s.execute(#"UPDATE share_participants SET status = 'REMOVED' WHERE share_id = ? AND "user" = ?"#, share,
                      user)
    }

    /// A new account takes over the invitations its address had while it had none, except in shares it already
    /// takes part in; the address's other rows go.
    static func claim(_ s: any SQLSession, pending: String, by user: String) throws {
        guard try s.exists(#"SELECT 1 FROM share_participants WHERE "user" = ?"#, [pending]) else { return }
        try s.execute(#"""
            UPDATE share_participants SET "user" = ? WHERE "user" = ?
                AND share_id NOT IN (SELECT share_id FROM share_participants WHERE "user" = ?)
            """#, user, pending, user)
        try s.execute(#"DELETE FROM share_participants WHERE "user" = ?"#, pending)
    }

    /// The users who have accepted a share that `user` has accepted too (owners included).
    static func partners(_ s: any SQLSession, of user: String) throws -> [String] {
        let columns = Selection<ParticipantColumn>([.user], as: "other")
        return try s.all("""
            SELECT DISTINCT \(columns.sql) FROM share_participants mine JOIN share_participants other ON other.share_id = mine.share_id
            WHERE mine."user" = ? AND mine.status = 'ACCEPTED' AND other.status = 'ACCEPTED' AND other."user" <> ? ORDER BY other."user"
            """, [user, user]) { NamedRow($0, columns).string(.user) }
    }

    /// The newest shares' row ids, at most `limit`.
    static func newestIDs(_ s: any SQLSession, limit: Int) throws -> [Int64] {
        let columns = Selection<Column>([.id])
        return try s.all("SELECT \(columns.sql) FROM shares ORDER BY id DESC LIMIT ?", [limit]) { NamedRow($0,
                columns).int64(.id) }
    }

    /// Whether a share has this short GUID.
    static func exists(_ s: any SQLSession, shortGUID: String) throws -> Bool {
        try s.exists("SELECT 1 FROM shares WHERE short_guid = ?", [shortGUID])
    }

    /// Whether the zone has any share; with `zoneWide`, a share of the whole zone.
    static func zoneHasShares(_ s: any SQLSession, zone: Int64, zoneWide: Bool = false) throws -> Bool {
        try s.exists("SELECT 1 FROM shares WHERE zone_id = ?\(zoneWide ? " AND root_name IS NULL" : "")", [zone])
    }

    /// The name of the share whose root is the whole zone (`CKRecordZone.share`), if it has one.
    static func zoneShareName(_ s: any SQLSession, zone: Int64) throws -> String? {
        let columns = Selection<Column>([.recordName])
        return try s.one("SELECT \(columns.sql) FROM shares WHERE zone_id = ? AND root_name IS NULL",
                         [zone]) { NamedRow($0, columns).string(.recordName) }
    }

    /// The zones shared whole, by row id.
    static func zonesSharedWhole(_ s: any SQLSession) throws -> Set<Int64> {
        let columns = Selection<Column>([.zoneID])
        return Set(try s.all("SELECT \(columns.sql) FROM shares WHERE root_name IS NULL") { NamedRow($0,
                columns).int64(.zoneID) })
    }

    /// The record name of the share with this row id.
    static func recordName(_ s: any SQLSession, id: Int64) throws -> String? {
        let columns = Selection<Column>([.recordName])
        return try s.one("SELECT \(columns.sql) FROM shares WHERE id = ?", [id]) { NamedRow($0,
                columns).string(.recordName) }
    }
}
