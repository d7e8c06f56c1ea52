import Foundation
import StratusModel

/// A participant's shared database is a view of the zones their owners shared with them: which zone a request
/// names there, what the participant's accepted shares let them do in it, and what changed in that view. Reads of
/// the share tables only, within the caller's transaction; records, zones and changes use it alike.
enum SharedZones {
    /// The owner's zone that a participant names in their shared database, and what their accepted shares let them
    /// do there. `zoneID.ownerRecordName` picks the owner when two owners share zones of the same name.
    static func zone(_ db: any SQLSession, user: String, zoneID: ZoneID) throws -> (ZoneRow, SharedZoneAccess) {
        let notShared = StratusError(.zoneNotFound, "no zone '\(zoneID.zoneName.prefix(100))' is shared with you",
                                     zoneID: zoneID)
        var found = try ShareRows.accepted(db, user: user, zoneName: zoneID.zoneName)
        if let owner = zoneID.ownerRecordName, !owner.isEmpty, owner != DatabaseID.publicOwner {
            found = found.filter { $0.zone.zoneID.ownerRecordName == owner }
        }
        guard let zone = found.first?.zone else { throw notShared }
        guard found.allSatisfy({ $0.zone.id == zone.id }) else {
            throw StratusError(.badRequest,
                               "zones named '\(zoneID.zoneName.prefix(100))' are shared with you by more than one owner: name the owner in zoneID.ownerRecordName", zoneID: zoneID)
        }
        var access = SharedZoneAccess(owner: zone.zoneID.ownerRecordName ?? "", zoneName: zone.zoneID.zoneName,
                                      zonePermission: nil, shares: [:])
        for s in found {
            if s.root == nil { access.zonePermission = s.permission } else { access.shares[s.shareID] = s.permission }
        }
        return (zone, access)
    }

    /// The zone a request names, and for the shared database the participant's access to it. Nil zone: the
    /// default zone of a database that has not been written to yet.
    static func resolve(_ db: any SQLSession, _ database: DatabaseID, _ zoneID: ZoneID) throws -> (ZoneRow?,
            SharedZoneAccess?) {
        if database.scope == .shared {
            guard !zoneID.isDefault else {
                throw StratusError(.badRequest, "the shared database has no default zone: name a zone shared with you",
                                   zoneID: zoneID)
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
            .sorted { ($0.zoneID.ownerRecordName ?? "", $0.zoneID.zoneName) < ($1.zoneID.ownerRecordName ?? "",
                    $1.zoneID.zoneName) }
    }

    /// A participant's `changes/database`: zones that changed, joined or left their shared database since the token,
    /// each owner's changes after that owner's position. Events of all owners are taken in sequence order, so a
    /// page holds the first events of each owner; an owner whose events all fit moves to their counter (read in
    /// the caller's snapshot: no change of theirs at or below it is missing from what was read).
    static func changes(_ db: any SQLSession, user: String, since: SharedPositions,
                        limit: Int) throws -> SharedDatabaseChanges {
        var latest: [Int64: Int64] = [:]   // zone row id → the last change the user can see
        var zones: [Int64: ZoneRow] = [:]
        var owners: Set<String> = []
        for z in try accepted(db, user: user) {
            let owner = z.zoneID.ownerRecordName ?? ""
            owners.insert(owner)
            zones[z.id] = z
            if z.changeSeq > since.position(of: owner) { latest[z.id] = z.changeSeq }
        }
        var events: [SharedDatabaseChanges.Event] = []
        for (id, seq, removed, zoneID) in try SharedZoneLog.feed(db, user: user) {
            let owner = zoneID.ownerRecordName ?? ""
            owners.insert(owner)
            guard seq > since.position(of: owner) else { continue }
            if removed {
                events.append(SharedDatabaseChanges.Event(seq: seq, owner: owner, zone: nil, deleted: zoneID))
            } else if zones[id] != nil {
                latest[id] = max(latest[id] ?? 0, seq)
            }
        }
        for (id, seq) in latest {
            guard let z = zones[id] else { continue }
            events.append(SharedDatabaseChanges.Event(seq: seq, owner: z.zoneID.ownerRecordName ?? "", zone: z,
                                                      deleted: nil))
        }
        events.sort { ($0.seq, $0.owner) < ($1.seq, $1.owner) }
        let page = events.prefix(limit)
        let behind = Set(events.dropFirst(limit).map(\.owner))
        var returned: [String: Int64] = [:]
        for e in page { returned[e.owner] = max(returned[e.owner] ?? 0, e.seq) }
        let counters = try ChangeSequence.privateCounters(db, owners: owners)
        var positions = SharedPositions()
        for owner in owners.sorted().prefix(SharedPositions.maximumOwners) {
            let start = since.position(of: owner)
            let done = behind.contains(owner) ? (returned[owner] ?? start) : max(returned[owner] ?? start,
                    counters[owner] ?? start)
            positions.byOwner[SharedPositions.tag(owner)] = max(start, done)
        }
        return SharedDatabaseChanges(changed: page.compactMap(\.zone), deleted: page.compactMap(\.deleted),
                                     positions: positions, more: !behind.isEmpty)
    }
}
