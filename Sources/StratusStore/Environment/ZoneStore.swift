import Foundation
import StratusModel

/// Zones: list, look up, create and delete.
public struct ZoneStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let records: StoredRecords
    let assets: AssetStore
    let notifications: NotificationStore

    func zoneSyncToken(_ z: ZoneRow) -> String { SyncToken.zone(signer, zoneRowID: z.id, seq: z.changeSeq) }

    public func all(in database: DatabaseID) throws(StratusError) -> [RecordZone] {
        // The shared database lists the zones others share with this user, under their owners' names.
        if database.scope == .shared {
            return try read { db, _ in
                let zoneShared = try ShareRows.zonesSharedWhole(db)
                return try SharedZones.accepted(db, user: database.ownerRecordName).map {
                    RecordZone(zoneID: $0.zoneID, syncToken: zoneSyncToken($0), atomic: $0.atomic,
                               share: zoneShared.contains($0.id) ? Share.zoneShareName : nil)
                }
            }
        }
        return try read { s, _ in
            var zones = try ZoneRow.listed(s, database).map { z, share in
                RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic, share: share)
            }
            if !zones.contains(where: { $0.zoneID.isDefault }) {
                let z = ZoneRow(id: 0, zoneID: ZoneID(zoneName: ZoneID.defaultZoneName,
                                                      ownerRecordName: database.ownerRecordName), atomic: false,
                        changeSeq: 0)
                zones.insert(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: false), at: 0)
            }
            return zones
        }
    }

    public func lookupZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> RecordZone {
        if database.scope == .shared {
            return try read { db, _ in
                let (zone, _) = try SharedZones.zone(db, user: database.ownerRecordName, zoneID: zoneID)
                let share = try ShareRows.zoneShareName(db, zone: zone.id)
                return RecordZone(zoneID: zone.zoneID, syncToken: zoneSyncToken(zone), atomic: zone.atomic,
                                  share: share)
            }
        }
        guard let z = try all(in: database).first(where: { $0.zoneID.zoneName == zoneID.zoneName }) else {
            throw try read { db, _ in try ZoneRow.missing(db, database, zoneID) }
        }
        return z
    }

    /// Creates a custom zone (idempotent: an existing zone is returned as it is).
    @discardableResult
    public func createZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> RecordZone {
        try ZoneID.validate(zoneName: zoneID.zoneName)
        if zoneID.isDefault { return try lookupZone(zoneID, in: database) }
        guard database.scope.allowsCustomZones else {
            throw StratusError(.badRequest, "the public database has only the default zone", zoneID: zoneID)
        }
        guard database.scope != .shared else {
            throw StratusError(.badRequest,
                               "zones cannot be created in the shared database: it holds the zones others share with you", zoneID: zoneID)
        }
        let created = try core.write(in: database) { s, _, seq in
            if let z = try ZoneRow.find(s, database, zoneID.zoneName) {
                return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)
            }
            let z = try ZoneRow.create(s, database, zoneID.zoneName, changeSeq: seq.next())
            var handOff = try notifications.handOff(s)
            try handOff?.zoneChanged(z.zoneID, database: database, deleted: false, s)
            try handOff?.finish(s)
            return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: true)
        }
        notifications.tendLog()
        return created
    }

    /// Deletes a custom zone and every record in it; the deletion shows in the database's change feed.
    public func deleteZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) {
        try removeZone(zoneID, in: database, reason: .deleted)
    }

    /// Deletes one custom zone as its owner's purge does (see `purgeUserData`): the zone's deletion says `purged`
    /// and requests into it answer USER_DELETED_ZONE until it is created again (the USER_DELETED_ZONE fault).
    public func purgeZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) {
        try removeZone(zoneID, in: database, reason: .purged)
    }

    private func removeZone(_ zoneID: ZoneID, in database: DatabaseID,
                            reason: ZoneDeletionReason) throws(StratusError) {
        guard !zoneID.isDefault else { throw StratusError(.badRequest, "the default zone cannot be deleted",
                                                          zoneID: zoneID) }
        guard database.scope != .shared else {
            throw StratusError(.badRequest,
                               "a shared zone belongs to its owner; leave the share (delete its share record) instead",
                    zoneID: zoneID)
        }
        let released: [String] = try core.write(in: database) { s, catalog, seq in
            guard let zone = try ZoneRow.find(s, database, zoneID.zoneName) else { throw try ZoneRow.missing(s,
                    database, zoneID) }
            let released = try clearZone(s, catalog, zone)
            try ZoneRow.markDeleted(s, id: zone.id, reason, changeSeq: seq.next())
            var handOff = try notifications.handOff(s)
            try handOff?.zoneChanged(zone.zoneID, database: database, deleted: true, s)
            try handOff?.finish(s)
            return released
        }
        assets.collectAssets(released)
        notifications.tendLog()
    }

    /// Deletes what a user keeps in this environment's private database, as CloudKit's "delete this app's data" in
    /// Settings does: every custom zone is gone with the reason `purged` (requests into it answer USER_DELETED_ZONE
    /// until the app creates it again), and the default zone is emptied and started anew, so that sync tokens taken
    /// before answer CHANGE_TOKEN_EXPIRED. Returns how many zones were purged (the default zone included).
    @discardableResult
    public func purgeUserData(_ userRecordName: String,
                              reason: ZoneDeletionReason = .purged) throws(StratusError) -> Int {
        let database = DatabaseID.privateDatabase(of: userRecordName)
        let (count, released): (Int, [String]) = try core.write(in: database) { s, catalog, seq in
            let zones = try ZoneRow.live(s, database)
            var released: [String] = []
            var handOff = try notifications.handOff(s)
            for zone in zones {
                released += try clearZone(s, catalog, zone)
                if zone.zoneID.isDefault {
                    try ZoneRow.remove(s, id: zone.id)
                } else {
                    try ZoneRow.markDeleted(s, id: zone.id, reason, changeSeq: seq.next())
                    try handOff?.zoneChanged(zone.zoneID, database: database, deleted: true, s)
                }
            }
            try handOff?.finish(s)
            return (zones.count, released)
        }
        assets.collectAssets(released)
        return count
    }

    /// Removes every record of a zone with its index rows, references, change log and counts; returns the asset
    /// checksums it let go of. The zone's own row is the caller's to mark.
    private func clearZone(_ s: any SQLSession, _ catalog: Catalog, _ zone: ZoneRow) throws -> [String] {
        var released: [String] = []
        // A custom zone is a private database's: its records were charged to its owner.
        if let owner = zone.zoneID.ownerRecordName, !owner.isEmpty, owner != DatabaseID.publicOwner {
            try UserUsage.add([owner: -(try UserUsage.zoneCharge(zone, scope: .private, catalog, s))], s)
        }
        for type in catalog.types {
            let fields = type.fields.filter { $0.type.scalar == .asset || $0.hasListTable || $0.hasFTS || $0.hasGeo }
            if !fields.isEmpty {
                let statements = fields.map { TypeStatements.FieldIndexStatements($0, s.dialect) }
                for (id, values) in try TypeStatements.zoneValues(type, fields: fields, zone: zone.id, s) {
                    for (i, f) in fields.enumerated() {
                        let index = statements[i]
                        if f.hasFTS { try s.execute(index.ftsDelete, id) }
                        if f.hasGeo, let arguments = try index.geoDeleteArguments(id,
                                stored: values[i]) { try s.execute(index.geoDelete, arguments) }
                        if f.hasListTable { try s.execute(index.listClear, id) }
                        if f.type.scalar == .asset, let data = values[i] {
                            for c in try FieldValueCodec.decode(data).assetChecksums { try AssetRows.release(c,
                                    s); released.append(c) }
                        }
                    }
                }
            }
            try CascadeRefs.clear(s, zone: zone.id, sourceTable: type.table, sourceType: type.id)
            try TypeStatements.deleteZone(type, zone: zone.id, s)
        }
        try CascadeRefs.clearTargets(s, zone: zone.id)
        try RecordLog.clear(s, zone: zone.id)
        try RecordCounts.clear(s, zone: zone.id)
        return released
    }
}
