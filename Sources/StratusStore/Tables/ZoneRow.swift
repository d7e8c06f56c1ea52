import StratusModel

/// A zone as stored: its row id (what records and tokens refer to) and its identity.
struct ZoneRow: Sendable, Hashable {
    var id: Int64
    var zoneID: ZoneID
    var atomic: Bool
    var changeSeq: Int64

    /// The database the zone belongs to, whose change counter orders its changes. Zones are stored for the
    /// public and private databases only (the shared database shows owners' private zones).
    var database: DatabaseID {
        let owner = zoneID.ownerRecordName ?? ""
        return owner == DatabaseID.publicOwner ? .publicDatabase : .privateDatabase(of: owner)
    }

    /// The database of the zone with this row id (nil: no such zone).
    static func database(_ s: any SQLSession, zoneRowID: Int64) throws -> DatabaseID? {
        try s.one("SELECT scope, owner FROM zones WHERE id = ?", [zoneRowID]) { r in
            DatabaseScope(rawValue: r.string(0) ?? "").map { DatabaseID(scope: $0, ownerRecordName: r.string(1) ?? "") }
        } ?? nil
    }

    static func find(_ s: any SQLSession, _ database: DatabaseID, _ name: String) throws -> ZoneRow? {
        try s.one("SELECT id, atomic, change_seq FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted = 0",
                  [database.scope.rawValue, database.ownerRecordName, name]) { r in
            ZoneRow(id: r.int64(0) ?? 0, zoneID: ZoneID(zoneName: name, ownerRecordName: database.ownerRecordName), atomic: r.bool(1) ?? false, changeSeq: r.int64(2) ?? 0)
        }
    }

    /// Every database has a default zone; it is made the first time something is written to it.
    static func findOrCreateDefault(_ s: any SQLSession, _ database: DatabaseID, seq: inout SequenceAllocator) throws -> ZoneRow {
        if let z = try find(s, database, ZoneID.defaultZoneName) { return z }
        let next = seq.next()
        try s.execute("""
            INSERT INTO zones(scope, owner, name, atomic, change_seq, created_at) VALUES (?, ?, ?, 0, ?, ?)
            ON CONFLICT(scope, owner, name) DO UPDATE SET deleted = 0, change_seq = excluded.change_seq
            """, database.scope.rawValue, database.ownerRecordName, ZoneID.defaultZoneName, next, WallClock.nowMillis())
        return try find(s, database, ZoneID.defaultZoneName)!
    }

    /// The zone a request names: ZONE_NOT_FOUND unless it exists (the default zone always does).
    static func resolve(_ s: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID, seq: inout SequenceAllocator) throws -> ZoneRow {
        if zoneID.isDefault { return try findOrCreateDefault(s, database, seq: &seq) }
        guard let z = try find(s, database, zoneID.zoneName) else { throw try missing(s, database, zoneID) }
        return z
    }

    /// Why a zone the request names is not there: USER_DELETED_ZONE when its owner purged it; ZONE_NOT_FOUND marked
    /// `userDidResetEncryptedData` when their encrypted-data reset deleted it (as CloudKit reports both); else
    /// ZONE_NOT_FOUND.
    static func missing(_ s: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID) throws -> StratusError {
        let reason = try s.one("SELECT deleted FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted IN (?, ?)",
                               [database.scope.rawValue, database.ownerRecordName, zoneID.zoneName, Int64(ZoneDeletionReason.purged.rawValue),
                                Int64(ZoneDeletionReason.encryptedDataReset.rawValue)]) { $0.int64(0) }.flatMap { ZoneDeletionReason(rawValue: Int($0)) }
        switch reason {
        case .purged?:
            return StratusError(.userDeletedZone, "zone '\(zoneID.zoneName)' was purged by its owner: create it again to use it", zoneID: zoneID)
        case .encryptedDataReset?:
            var e = StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' was deleted when its owner reset their encrypted data: create it again and upload what you kept", zoneID: zoneID)
            e.userDidResetEncryptedData = true
            return e
        default:
            return StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
        }
    }
}


import Foundation
