import Foundation
import GRDB
import StratusModel

/// Change feeds: zone changes and database changes since a sync token.
extension EnvironmentStore {
    /// Records changed and deleted in a zone since `syncToken` (nil: from the start), oldest first.
    public func zoneChanges(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?, resultsLimit: Int = Query.maximumResults,
                            desiredKeys: [String]? = nil) throws(StratusError) -> ZoneChanges {
        try changesPage(in: database, zoneID: zoneID, since: syncToken, resultsLimit: resultsLimit) { db, catalog, zone, page in
            var idsByType: [Int64: [Int64]] = [:]
            for e in page where e.deletedName == nil { idsByType[e.typeID, default: []].append(e.recordID) }
            let loaded = try loadRecords(idsByType, catalog: catalog, desiredKeys: desiredKeys, zones: { _ in zone.zoneID }, db)
            return page.compactMap { e in e.deletedName != nil ? nil : loaded["\(e.typeID)/\(e.recordID)"] }
        }
    }

    /// The same page with its changed records handed to `sink` as they are read (the returned value's `changed`
    /// is empty). Records come in change order within each record type, one type after another.
    public func zoneChanges(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?, resultsLimit: Int = Query.maximumResults,
                            desiredKeys: [String]? = nil, into sink: inout some RecordSink) throws(StratusError) -> ZoneChanges {
        try changesPage(in: database, zoneID: zoneID, since: syncToken, resultsLimit: resultsLimit) { db, catalog, zone, page in
            guard let first = page.first?.seq, let last = page.last?.seq else { return [] }
            var types: [Int64] = []
            for e in page where e.deletedName == nil && !types.contains(e.typeID) { types.append(e.typeID) }
            for typeID in types {
                guard let type = catalog.type(id: typeID) else { continue }
                let fields = RecordRowCodec.wantedFields(type, desiredKeys)
                let statement = try db.cachedStatement(sql: """
                    SELECT \(RecordRowCodec.selectList(type, fields: fields)) FROM record_log l JOIN \(type.table) t ON t.id = l.record_id
                    WHERE l.zone_id = ? AND l.seq BETWEEN ? AND ? AND l.type_id = ? AND l.deleted = 0 ORDER BY l.seq
                    """)
                let streamer = RowStreamer(type: type, fields: fields)
                let cursor = try Row.fetchCursor(statement, arguments: [zone.id, first, last, typeID])
                while try cursor.next() != nil {
                    try streamer.stream(statement, zoneID: zone.zoneID, into: &sink)
                }
            }
            return []
        }
    }

    /// One page of a zone's change log: `changed` turns its entries into the changed records it returns;
    /// deletions, the next sync token and moreComing are worked out here.
    private func changesPage(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?, resultsLimit: Int,
                             changed: (Database, Catalog, ZoneRow, [LogEntry]) throws -> [StoredRecord]) throws(StratusError) -> ZoneChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        return try read { db, catalog in
            guard let zone = try ZoneRow.find(db, database, zoneID.zoneName) else {
                if zoneID.isDefault {
                    if let t = syncToken { _ = try SyncToken.readZone(signer, t, zoneRowID: 0) }
                    return ZoneChanges(zoneID: zoneID, changed: [], deleted: [], syncToken: SyncToken.zone(signer, zoneRowID: 0, seq: 0), moreComing: false)
                }
                throw StratusError(.zoneNotFound, "zone '\(zoneID.zoneName)' does not exist", zoneID: zoneID)
            }
            var since: Int64 = 0
            if let t = syncToken {
                // A token taken before the default zone's first write carries zone 0.
                do { since = try SyncToken.readZone(signer, t, zoneRowID: zone.id) } catch {
                    guard zone.zoneID.isDefault, (try? SyncToken.readZone(signer, t, zoneRowID: 0)) != nil else { throw error }
                }
            }
            // Numbers only, except a deleted record's name: no row copies for a page of 200.
            let statement = try db.cachedStatement(sql: """
                SELECT seq, type_id, record_id, deleted, record_name FROM record_log WHERE zone_id = ? AND seq > ? ORDER BY seq LIMIT ?
                """)
            let cursor = try Row.fetchCursor(statement, arguments: [zone.id, since, limit + 1])
            var page: [LogEntry] = []
            page.reserveCapacity(limit)
            var more = false
            while let row = try cursor.next() {
                guard page.count < limit else { more = true; break }
                let deleted: Bool = row[3]
                page.append(LogEntry(seq: row[0], typeID: row[1], recordID: row[2], deletedName: deleted ? row[4] as String : nil))
            }
            let records = try changed(db, catalog, zone, page)
            let deleted: [String] = page.compactMap(\.deletedName)
            let lastSeq: Int64 = more ? page.last!.seq : max(since, zone.changeSeq, page.last?.seq ?? 0)
            return ZoneChanges(zoneID: zone.zoneID, changed: records, deleted: deleted,
                               syncToken: SyncToken.zone(signer, zoneRowID: zone.id, seq: lastSeq), moreComing: more)
        }
    }

    /// Zones created, changed or deleted in a database since `syncToken`.
    public func databaseChanges(in database: DatabaseID, since syncToken: String?, resultsLimit: Int = Query.maximumResults) throws(StratusError) -> DatabaseChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        let since = try syncToken.map { (t: String) throws(StratusError) in try SyncToken.readDatabase(signer, t, database) } ?? 0
        return try read { db, _ in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, name, atomic, change_seq, deleted FROM zones WHERE scope = ? AND owner = ? AND change_seq > ? ORDER BY change_seq LIMIT ?
                """, arguments: [database.scope.rawValue, database.ownerRecordName, since, limit + 1])
            let page = rows.prefix(limit)
            var changed: [RecordZone] = []
            var deleted: [ZoneID] = []
            for r in page {
                let z = ZoneRow(id: r[0], zoneID: ZoneID(zoneName: r[1], ownerRecordName: database.ownerRecordName), atomic: r[2], changeSeq: r[3])
                if r[4] as Bool { deleted.append(z.zoneID) } else { changed.append(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic)) }
            }
            let more = rows.count > limit
            let last: Int64 = page.last.map { $0[3] } ?? since
            let token = more ? last : max(last, try ChangeSequence.current(db))
            return DatabaseChanges(changedZones: changed, deletedZones: deleted, syncToken: SyncToken.database(signer, database, seq: token), moreComing: more)
        }
    }
}
