import Foundation
import GRDB
import StratusModel

/// Zones: list, look up, create and delete.
extension EnvironmentStore {
    func zoneSyncToken(_ z: ZoneRow) -> String { SyncToken.zone(signer, zoneRowID: z.id, seq: z.changeSeq) }

    public func zones(in database: DatabaseID) throws(StratusError) -> [RecordZone] {
        try read { db, _ in
            // The shared database lists the zones others share with this user, under their owners' names.
            if database.scope == .shared {
                return try sharedZones(db, user: database.ownerRecordName).map { RecordZone(zoneID: $0.zoneID, syncToken: zoneSyncToken($0), atomic: $0.atomic) }
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, atomic, change_seq FROM zones WHERE scope = ? AND owner = ? AND deleted = 0 ORDER BY name != '_defaultZone', name
                """, arguments: [database.scope.rawValue, database.ownerRecordName])
            var zones = rows.map { r -> RecordZone in
                let z = ZoneRow(id: r[0], zoneID: ZoneID(zoneName: r[1], ownerRecordName: database.ownerRecordName), atomic: r[2], changeSeq: r[3])
                return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)
            }
            if !zones.contains(where: { $0.zoneID.isDefault }) {
                let z = ZoneRow(id: 0, zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: database.ownerRecordName), atomic: false, changeSeq: 0)
                zones.insert(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: false), at: 0)
            }
            return zones
        }
    }

    public func lookupZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) -> RecordZone {
        if database.scope == .shared {
            return try read { db, _ in
                let (zone, _) = try sharedZone(db, user: database.ownerRecordName, zoneID: zoneID)
                return RecordZone(zoneID: zone.zoneID, syncToken: zoneSyncToken(zone), atomic: zone.atomic)
            }
        }
        guard let z = try zones(in: database).first(where: { $0.zoneID.zoneName == zoneID.zoneName }) else {
            throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
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
            throw StratusError(.badRequest, "zones cannot be created in the shared database: it holds the zones others share with you", zoneID: zoneID)
        }
        return try write { db, _ in
            if let z = try ZoneRow.find(db, database, zoneID.zoneName) {
                return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)
            }
            var seq = try SequenceAllocator(db.sql)
            let s = seq.next()
            try db.execute(sql: "DELETE FROM zones WHERE scope = ? AND owner = ? AND name = ? AND deleted = 1",
                           arguments: [database.scope.rawValue, database.ownerRecordName, zoneID.zoneName])
            try db.execute(sql: "INSERT INTO zones(scope, owner, name, atomic, change_seq, created_at) VALUES (?, ?, ?, 1, ?, ?)",
                           arguments: [database.scope.rawValue, database.ownerRecordName, zoneID.zoneName, s, Clock.nowMillis()])
            try seq.save(db.sql)
            let z = try ZoneRow.find(db, database, zoneID.zoneName)!
            var outbox = try outbox(db)
            try outbox?.zoneChanged(z.zoneID, database: database, deleted: false, db)
            try outbox?.finish(db)
            return RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: true)
        }
    }

    /// Deletes a custom zone and every record in it; the deletion shows in the database's change feed.
    public func deleteZone(_ zoneID: ZoneID, in database: DatabaseID) throws(StratusError) {
        guard !zoneID.isDefault else { throw StratusError(.badRequest, "the default zone cannot be deleted", zoneID: zoneID) }
        guard database.scope != .shared else {
            throw StratusError(.badRequest, "a shared zone belongs to its owner; leave the share (delete its share record) instead", zoneID: zoneID)
        }
        let released: [String] = try write { db, catalog in
            guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
            }
            var released: [String] = []
            for type in catalog.types {
                let fields = type.fields.filter { $0.type.scalar == .asset || $0.hasListTable || $0.hasFTS || $0.hasGeo }
                if !fields.isEmpty {
                    let rows = try Row.fetchAll(db, sql: "SELECT id, \(fields.map(\.column).joined(separator: ", ")) FROM \(type.table) WHERE zone_id = ?", arguments: [zone.id])
                    for row in rows {
                        let id: Int64 = row[0]
                        for (i, f) in fields.enumerated() {
                            if f.hasFTS { try db.execute(sql: "DELETE FROM \(f.ftsTable) WHERE rowid = ?", arguments: [id]) }
                            if f.hasGeo { try db.execute(sql: "DELETE FROM \(f.geoTable) WHERE id = ?", arguments: [id]) }
                            if f.hasListTable { try db.execute(sql: "DELETE FROM \(f.listTable) WHERE record_id = ?", arguments: [id]) }
                            if f.type.scalar == .asset, let v = try RecordRowCodec.decodeField(f, row[i + 1]) {
                                for c in v.assetChecksums { try AssetReferences.release(c, db.sql); released.append(c) }
                            }
                        }
                    }
                }
                try db.execute(sql: "DELETE FROM cascade_refs WHERE source_type = ? AND source_id IN (SELECT id FROM \(type.table) WHERE zone_id = ?)", arguments: [type.id, zone.id])
                try db.execute(sql: "DELETE FROM \(type.table) WHERE zone_id = ?", arguments: [zone.id])
            }
            try db.execute(sql: "DELETE FROM cascade_refs WHERE target_zone = ?", arguments: [zone.id])
            try db.execute(sql: "DELETE FROM record_log WHERE zone_id = ?", arguments: [zone.id])
            try db.execute(sql: "DELETE FROM record_counts WHERE zone_id = ?", arguments: [zone.id])
            var seq = try SequenceAllocator(db.sql)
            try db.execute(sql: "UPDATE zones SET deleted = 1, change_seq = ? WHERE id = ?", arguments: [seq.next(), zone.id])
            try seq.save(db.sql)
            var outbox = try outbox(db)
            try outbox?.zoneChanged(zone.zoneID, database: database, deleted: true, db)
            try outbox?.finish(db)
            return released
        }
        collectAssets(released)
    }
}
