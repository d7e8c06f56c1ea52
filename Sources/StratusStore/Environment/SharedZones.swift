import Foundation
import StratusModel

/// A participant's shared database is a view of the zones their owners shared with them: which zone a request
/// names there, what the participant's accepted shares let them do in it, and what changed in that view. Reads of
/// the share tables only, within the caller's transaction; records, zones and changes use it alike.
enum SharedZones {
    /// The owner's zone that a participant names in their shared database, and what their accepted shares let them
    /// do there. `zoneID.ownerRecordName` picks the owner when two owners share zones of the same name.
    static func zone(_ db: any SQLSession, user: String, zoneID: ZoneID) throws -> (ZoneRow, SharedZoneAccess) {
        let notShared = StratusError(.zoneNotFound, "no zone '\(zoneID.zoneName.prefix(100))' is shared with you", zoneID: zoneID)
        var found = try ShareRows.accepted(db, user: user, zoneName: zoneID.zoneName)
        if let owner = zoneID.ownerRecordName, !owner.isEmpty, owner != DatabaseID.publicOwner {
            found = found.filter { $0.zone.zoneID.ownerRecordName == owner }
        }
        guard let zone = found.first?.zone else { throw notShared }
        guard found.allSatisfy({ $0.zone.id == zone.id }) else {
            throw StratusError(.badRequest, "zones named '\(zoneID.zoneName.prefix(100))' are shared with you by more than one owner: name the owner in zoneID.ownerRecordName", zoneID: zoneID)
        }
        var access = SharedZoneAccess(owner: zone.zoneID.ownerRecordName ?? "", zoneName: zone.zoneID.zoneName, zonePermission: nil, shares: [:])
        for s in found {
            if s.root == nil { access.zonePermission = s.permission } else { access.shares[s.shareID] = s.permission }
        }
        return (zone, access)
    }

    /// The zone a request names, and for the shared database the participant's access to it. Nil zone: the
    /// default zone of a database that has not been written to yet.
    static func resolve(_ db: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID) throws -> (ZoneRow?, SharedZoneAccess?) {
        if database.scope == .shared {
            guard !zoneID.isDefault else {
                throw StratusError(.badRequest, "the shared database has no default zone: name a zone shared with you", zoneID: zoneID)
            }
            let (zone, access) = try zone(db, user: database.ownerRecordName, zoneID: zoneID)
            return (zone, access)
        }
        guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
            if zoneID.isDefault { return (nil, nil) }
            throw StratusError.from(try ZoneRow.missing(db, database, zoneID))
        }
        return (zone, nil)
    }

    /// The zones shared with `user` that they have accepted, as their shared database lists them.
    static func accepted(_ db: any SQLSession, user: String) throws -> [ZoneRow] {
        var seen: Set<Int64> = []
        return try ShareRows.accepted(db, user: user).compactMap { seen.insert($0.zone.id).inserted ? $0.zone : nil }
            .sorted { ($0.zoneID.ownerRecordName ?? "", $0.zoneID.zoneName) < ($1.zoneID.ownerRecordName ?? "", $1.zoneID.zoneName) }
    }

    /// A participant's `changes/database`: zones that changed, joined or left their shared database since the token.
    static func changes(_ db: any SQLSession, user: String, since: Int64, limit: Int) throws -> SharedDatabaseChanges {
        var latest: [Int64: Int64] = [:]   // zone row id → the last change the user can see
        var zones: [Int64: ZoneRow] = [:]
        for z in try accepted(db, user: user) {
            zones[z.id] = z
            if z.changeSeq > since { latest[z.id] = z.changeSeq }
        }
        var gone: [(seq: Int64, zone: ZoneID)] = []
        let rows = try db.all("""
            SELECT g.zone_id, g.seq, g.removed, z.name, z.owner FROM shared_zone_log g JOIN zones z ON z.id = g.zone_id
            WHERE g."user" = ? AND g.seq > ? ORDER BY g.seq
            """, [user, since]) { r in (r.int64(0) ?? 0, r.int64(1) ?? 0, r.bool(2) ?? false, r.string(3) ?? "", r.string(4)) }
        for (id, seq, removed, name, owner) in rows {
            if removed {
                gone.append((seq, ZoneID(zoneName: name, ownerRecordName: owner)))
            } else if zones[id] != nil {
                latest[id] = max(latest[id] ?? 0, seq)
            }
        }
        var events: [SharedDatabaseChanges.Event] = latest.map { SharedDatabaseChanges.Event(seq: $0.value, zone: zones[$0.key], deleted: nil) }
        events += gone.map { SharedDatabaseChanges.Event(seq: $0.seq, zone: nil, deleted: $0.zone) }
        events.sort { $0.seq < $1.seq }
        let page = Array(events.prefix(limit))
        return SharedDatabaseChanges(changed: page.compactMap(\.zone), deleted: page.compactMap(\.deleted), last: page.last?.seq ?? since, more: events.count > limit)
    }
}

