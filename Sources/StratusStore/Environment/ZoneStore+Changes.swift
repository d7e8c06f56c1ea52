import Foundation
import StratusModel

/// Change feeds: zone changes and database changes since a sync token.
extension ZoneStore {
    /// Records changed and deleted in a zone since `syncToken` (nil: from the start), oldest first.
    public func zoneChanges(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?,
                            resultsLimit: Int = Query.maximumResults,
                            desiredKeys: [String]? = nil) throws(StratusError) -> ZoneChanges {
        try changesPage(in: database, zoneID: zoneID, since: syncToken,
                        resultsLimit: resultsLimit) { db, catalog, zone, page, visible, links in
            // Read as the streamed page reads them (one statement per record type over the log joined to the type's
            // table), then put back in change order.
            var sink = StoredRecordSink(capacity: 1)
            var byRow: [LogRow: StoredRecord] = Dictionary(minimumCapacity: page.count)
            try streamChanged(db, catalog, zone, page, visible, links, desiredKeys,
                              into: &sink) { typeID, recordID, sink in
                byRow[LogRow(typeID: typeID, recordID: recordID)] = sink.takeLast()
            }
            return page.compactMap { e in e.deletedName != nil ? nil : byRow[LogRow(typeID: e.typeID,
                    recordID: e.recordID)] }
        }
    }

    /// The same page with its changed records handed to `sink` as they are read (the returned value's `changed`
    /// is empty). Records come in change order within each record type, one type after another.
    public func zoneChanges(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?,
                            resultsLimit: Int = Query.maximumResults,
                            desiredKeys: [String]? = nil, into sink: inout some RecordSink) throws(StratusError) -> ZoneChanges {
        try changesPage(in: database, zoneID: zoneID, since: syncToken,
                        resultsLimit: resultsLimit) { db, catalog, zone, page, visible, links in
            try streamChanged(db, catalog, zone, page, visible, links, desiredKeys, into: &sink) { _, _, _ in }
            return []
        }
    }

    /// A changed record's row: its type and its id in the type's table.
    private struct LogRow: Hashable {
        var typeID, recordID: Int64
    }

    /// Streams a page's changed records into `sink`, one statement per record type over the change log joined to
    /// the type's table (and to the zone's links when it has any, `links`); `streamed` hears of each record as it ends.
    private func streamChanged<Sink: RecordSink>(_ db: any SQLSession, _ catalog: Catalog, _ zone: ZoneRow,
                                                 _ page: [LogEntry], _ visible: Set<String>?,
                                                 _ links: Bool, _ desiredKeys: [String]?, into sink: inout Sink,
                                                 streamed: (Int64, Int64, inout Sink) throws -> Void) throws {
        guard let first = page.first?.seq, let last = page.last?.seq else { return }
        var types: [Int64] = []
        for e in page where e.deletedName == nil && !types.contains(e.typeID) { types.append(e.typeID) }
        guard !types.isEmpty else { return }
        for typeID in types {
            guard let type = catalog.type(id: typeID) else { continue }
            let fields = RecordRowCodec.wantedFields(type, desiredKeys)
            let streamer = RowStreamer(type: type, fields: fields)
            let linkColumn = links ? CatalogType.systemColumns.count + fields.count : nil
            try RecordLog.eachChanged(db, type, fields: fields, zone: zone.id, from: first, to: last,
                                      links: links) { row in
                if let visible, !visible.contains(RowStreamer.recordName(row) ?? "") { return }
                try streamer.stream(row, zoneID: zone.zoneID, linkColumn: linkColumn, into: &sink)
                try streamed(typeID, row.int64(RecordColumn.id.position) ?? 0, &sink)
            }
        }
    }

    /// One page of a zone's change log: `changed` turns its entries into the changed records it returns;
    /// deletions, the next sync token and moreComing are worked out here.
    private func changesPage(in database: DatabaseID, zoneID: ZoneID, since syncToken: String?, resultsLimit: Int,
                             changed: (any SQLSession, Catalog, ZoneRow, [LogEntry], Set<String>?,
                                       Bool) throws -> [StoredRecord]) throws(StratusError) -> ZoneChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        return try core.readCheckingCatalog { db, catalogOf in
            let (zoneRow, access) = try SharedZones.resolve(db, database, zoneID)
            let isLiveZone = { (id: Int64) -> Bool in
                (try? ZoneRow.isLive(db, id: id)) ?? false
            }
            guard let zone = zoneRow else {
                if let t = syncToken { _ = try SyncToken.readZone(signer, t, zoneRowID: 0,
                                                                  retention: core.notificationPolicy.changeTokenRetention, isLiveZone: isLiveZone) }
                return ZoneChanges(zoneID: zoneID, changed: [], deleted: [], syncToken: SyncToken.zone(signer,
                        zoneRowID: 0, seq: 0), moreComing: false)
            }
            var since: Int64 = 0
            if let t = syncToken {
                // A token taken before the default zone's first write carries zone 0.
                do { since = try SyncToken.readZone(signer, t, zoneRowID: zone.id,
                                                    retention: core.notificationPolicy.changeTokenRetention,
                        isLiveZone: isLiveZone) } catch {
                    guard zone.zoneID.isDefault, (try? SyncToken.readZone(signer, t, zoneRowID: 0,
                            retention: core.notificationPolicy.changeTokenRetention)) != nil else { throw error }
                }
            }
            let restricted = access != nil && access!.zonePermission == nil
            let read = try RecordLog.page(db, zone: zone.id, since: since, limit: limit, names: restricted)
            var page = read.entries
            let more = read.more, names = read.names, generation = read.generation, links = read.zoneHasLinks
            // A participant of hierarchy shares hears only of the records those shares cover; the token still moves on.
            let lastInPage = page.last?.seq
            var visible: Set<String>? = nil
            if restricted {
                let covered = try RecordLinks.covered(db, zone: zone.id, shares: Array(access!.shares.keys),
                                                      names: names)
                visible = covered
                page = zip(page, names).filter { covered.contains($0.1) }.map(\.0)
            }
            let catalog = try generation.map(catalogOf) ?? core.catalog(db)
            let records = try changed(db, catalog, zone, page, visible, links)
            let deleted: [String] = page.compactMap(\.deletedName)
            let deletedTypes: [String] = page.compactMap { e in e.deletedName == nil ? nil : catalog.type(id: e.typeID)?.name ?? "" }
            let lastSeq: Int64 = more ? lastInPage! : max(since, zone.changeSeq, lastInPage ?? 0)
            var changes = ZoneChanges(zoneID: zone.zoneID, changed: records, deleted: deleted,
                                      syncToken: SyncToken.zone(signer, zoneRowID: zone.id,
                                                                seq: lastSeq), moreComing: more)
            changes.deletedRecordTypes = deletedTypes
            return changes
        }
    }

    /// Zones created, changed or deleted in a database since `syncToken`. The default zone is never among them:
    /// CloudKit syncs custom zones only (see `CloudKitAPI.refuseDefaultZoneChanges`).
    public func databaseChanges(in database: DatabaseID, since syncToken: String?,
                                resultsLimit: Int = Query.maximumResults) throws(StratusError) -> DatabaseChanges {
        let limit = max(1, min(resultsLimit <= 0 ? Query.maximumResults : resultsLimit, Query.maximumResults))
        let retention = core.notificationPolicy.changeTokenRetention
        if database.scope == .shared {
            let since = try syncToken.map { (t: String) throws(StratusError) in try SyncToken.readShared(signer, t,
                    database, retention: retention) } ?? SharedPositions()
            // The feed reads zones and the share log in separate statements and each owner's counter: one snapshot
            // keeps them at one moment, so no owner's position passes over a change the statements did not see.
            return try core.snapshotRead { db in
                let c = try SharedZones.changes(db, user: database.ownerRecordName, since: since, limit: limit)
                return DatabaseChanges(changedZones: c.changed.map { RecordZone(zoneID: $0.zoneID,
                        syncToken: zoneSyncToken($0), atomic: $0.atomic) },
                                       deletedZones: c.deleted, syncToken: SyncToken.shared(signer, database,
                                               c.positions), moreComing: c.more)
            }
        }
        let since = try syncToken.map { (t: String) throws(StratusError) in try SyncToken.readDatabase(signer, t,
                database, retention: retention) } ?? 0
        return try read { db, _ in
            // The counter first: every zone change it counts has committed, so the zones read next include them
            // (a change committed between the two is read too, and the token then stands at it).
            let counter = try ChangeSequence.current(db, database)
            let rows = try ZoneRow.changed(db, database, since: since, limit: limit + 1)
            let page = rows.prefix(limit)
            var changed: [RecordZone] = []
            var deleted: [ZoneID] = []
            var reasons: [ZoneDeletionReason] = []
            for (z, gone) in page {
                if gone != 0 {
                    deleted.append(z.zoneID)
                    reasons.append(ZoneDeletionReason(rawValue: gone) ?? .deleted)
                } else {
                    changed.append(RecordZone(zoneID: z.zoneID, syncToken: zoneSyncToken(z), atomic: z.atomic))
                }
            }
            let more = rows.count > limit
            let last: Int64 = page.last?.zone.changeSeq ?? since
            let token = more ? last : max(last, counter)
            var changes = DatabaseChanges(changedZones: changed, deletedZones: deleted,
                                          syncToken: SyncToken.database(signer, database, seq: token), moreComing: more)
            changes.deletionReasons = reasons
            return changes
        }
    }
}
