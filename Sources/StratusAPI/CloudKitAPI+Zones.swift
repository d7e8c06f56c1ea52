import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// The zones resource, with the database's and a zone's changes: `zones/list`, `lookup`, `modify`, `changes`,
    /// `changes/database` and `changes/zone`.
    static let zoneOperations = [
        Operation(.zonesList) { try $0.zonesList($1) },
        Operation(.zonesLookup) { try $0.zonesLookup($1) },
        Operation(.zonesModify) { try $0.zonesModify($1) },
        Operation(.zonesChanges) { try $0.zonesChanges($1) },
        Operation(.changesDatabase) { try $0.changesDatabase($1) },
        Operation(.changesZone) { try $0.changesZone($1) },
    ]

    func zonesList(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let zones = try env(ctx).zones.all(in: ctx.databaseID)
        let enc = encoding(ctx)
        return jsonList("zones", zones) { z, w in enc.zone(z, &w) }
    }

    func zonesLookup(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard let items = try ctx.body.array("zones") else { throw StratusError.badRequest("zones/lookup needs zones: [zoneID]") }
        try RequestLimits.check(items.count, "zones")
        let store = try env(ctx)
        let enc = encoding(ctx)
        var results: [Result<RecordZone, StratusError>] = []
        for item in items {
            do { results.append(.success(try store.zones.lookupZone(try WireDecoding.zoneID(item["zoneID"] ?? item),
                                                                    in: ctx.databaseID))) } catch {
                results.append(.failure(StratusError.wrapping(error)))
            }
        }
        return jsonList("zones", results) { r, w in
            switch r {
            case .success(let z): enc.zone(z, &w)
            case .failure(let e): enc.error(e, &w)
            }
        }
    }

    /// Create and delete zones, in order, one result per operation.
    func zonesModify(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard let ops = try ctx.body.array("operations") else { throw StratusError.badRequest("zones/modify needs operations: [{operationType, zone}]") }
        try RequestLimits.check(ops.count, "operations")
        let store = try env(ctx)
        let enc = encoding(ctx)
        var results: [(ZoneID, Result<RecordZone?, StratusError>)] = []
        for op in ops {
            let zoneJSON = op["zone"]?["zoneID"] ?? op["zone"]
            var zone = (try? WireDecoding.zoneID(zoneJSON)) ?? ZoneID(zoneName: zoneJSON?["zoneName"]?.string ?? "")
            // A private zone named without its owner is the caller's: answered with their user record name, as
            // creates and lists answer it.
            if zone.ownerRecordName == nil && ctx.database == .private { zone = ZoneID(zoneName: zone.zoneName,
                    ownerRecordName: ctx.databaseID.ownerRecordName) }
            do {
                switch op["operationType"]?.string.flatMap(ZoneOperation.init) {
                case .create?: results.append((zone,
                                               .success(try store.zones.createZone(try WireDecoding.zoneID(zoneJSON),
                        in: ctx.databaseID))))
                case .delete?:
                    try store.zones.deleteZone(try WireDecoding.zoneID(zoneJSON), in: ctx.databaseID)
                    results.append((zone, .success(nil)))
                case nil: throw StratusError.badRequest("zone operationType must be create or delete")
                }
            } catch {
                results.append((zone, .failure(StratusError.wrapping(error).concerning(zone: zone))))
            }
        }
        return jsonList("zones", results) { item, w in
            let (zone, r) = item
            switch r {
            case .success(let z?): enc.zone(z, &w)
            case .success(nil):
                w.beginObject(); w.key("zoneID"); enc.zoneID(zone, &w); w.field("deleted", true); w.endObject()
            case .failure(let e): enc.error(e, &w)
            }
        }
    }

    /// `zones/changes`: the live server honours only `metaSyncToken`.
    func zonesChanges(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        try databaseChangesResponse(ctx, tokenKey: "metaSyncToken", zonesKey: "zones")
    }

    func changesDatabase(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        try databaseChangesResponse(ctx, tokenKey: "syncToken", zonesKey: "zones")
    }

    private func databaseChangesResponse(_ ctx: CloudKitRequest, tokenKey: String,
                                         zonesKey: String) throws -> HTTPResponse {
        guard ctx.database != .public else { throw StratusError.badRequest("database changes are for private and shared databases") }
        let changes = try env(ctx).zones.databaseChanges(in: ctx.databaseID, since: try ctx.body.string(tokenKey),
                                                   resultsLimit: try WireDecoding.int(ctx.body["resultsLimit"],
                                                           "resultsLimit") ?? 200)
        let enc = encoding(ctx)
        return json { w in
            w.beginObject()
            w.key(zonesKey)
            w.beginArray()
            for z in changes.changedZones { enc.zone(z, &w) }
            for (i, z) in changes.deletedZones.enumerated() {
                w.beginObject(); w.key("zoneID"); enc.zoneID(z, &w); w.field("deleted", true)
                // Why it went, as CloudKit's framework tells apps; `deleted` alone means the app deleted it.
                switch i < changes.deletionReasons.count ? changes.deletionReasons[i] : .deleted {
                case .deleted: break
                case .purged: w.field("purged", true)
                case .encryptedDataReset: w.field("encryptedDataReset", true)
                }
                w.endObject()
            }
            w.endArray()
            w.key(tokenKey); w.string(changes.syncToken)
            w.field("moreComing", changes.moreComing)
            w.endObject()
        }
    }

    /// CloudKit syncs custom zones only: "CloudKit doesn't support syncing the default zone", and the default zone
    /// has no `fetchChanges` capability (Apple's documentation of `CKFetchRecordChangesOperation`'s
    /// `init(recordZoneID:previousServerChangeToken:)` and of `CKRecordZone.default()`). Its changes are refused as
    /// a client's mistake, and `changes/database` never lists it.
    static func refuseDefaultZoneChanges(_ zone: ZoneID) throws(StratusError) {
        guard zone.zoneName == ZoneID.defaultZoneName else { return }
        throw StratusError(.badRequest,
                           "the default zone does not support fetching changes: CloudKit syncs custom zones (save records in a CKRecordZone of your own)",
                           zoneID: zone)
    }

    /// `changes/zone`: several zones' record changes, each since its own token.
    func changesZone(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard ctx.database != .public else { throw StratusError.badRequest("zone changes are for private and shared databases") }
        guard let zones = try ctx.body.array("zones"), !zones.isEmpty else { throw StratusError.badRequest("changes/zone needs zones: [{zoneID, syncToken?}]") }
        guard zones.count <= 200 else { throw StratusError(.limitExceeded, "at most 200 zones per request") }
        let store = try env(ctx)
        let enc = encoding(ctx)
        let defaultLimit = try WireDecoding.int(ctx.body["resultsLimit"], "resultsLimit") ?? 200
        let defaultKeys = try WireDecoding.stringList(ctx.body["desiredKeys"], "desiredKeys")
        // Room for a full page of typical records up front: growing a buffer of hundreds of kilobytes copies it.
        var w = JSONWriter(capacity: zones.count == 1 ? min(max(defaultLimit, 1), 200) * 1200 + 1024 : 64 * 1024)
        let spool = answerSpool(ctx)
        w.beginObject()
        w.key("zones")
        w.beginArray()
        for z in zones {
            let zoneID = (try? WireDecoding.zoneID(z["zoneID"])) ?? .defaultZone
            // Records stream straight into the response; a zone that fails is taken back out to its mark and
            // answered with its error instead, so nothing of it is left half-written.
            let mark = w.mark()
            var spilledHere = false
            do {
                guard z["zoneID"] != nil else { throw StratusError.badRequest("each zone needs a zoneID") }
                try Self.refuseDefaultZoneChanges(zoneID)
                w.beginObject()
                w.key("records")
                var sink = WireRecordSink(encoding: enc, writer: w, spool: spool)
                // Once part of the zone went to the spool it cannot be taken back: a failure then fails the answer.
                defer { spilledHere = sink.spilled }
                sink.writer.beginArray()
                let c = try store.zones.zoneChanges(in: ctx.databaseID, zoneID: try WireDecoding.zoneID(z["zoneID"]),
                                                    since: try z.string("syncToken") ?? ctx.body.string("syncToken"),
                                              resultsLimit: try WireDecoding.int(z["resultsLimit"],
                                                      "resultsLimit") ?? defaultLimit,
                                              desiredKeys: try WireDecoding.stringList(z["desiredKeys"],
                                                      "desiredKeys") ?? defaultKeys, into: &sink)
                try sink.checkSpool()
                for (i, name) in c.deleted.enumerated() {
                    enc.deletedRecord(name, zone: c.zoneID,
                                      recordType: i < c.deletedRecordTypes.count ? c.deletedRecordTypes[i] : nil,
                            &sink.writer)
                }
                sink.writer.endArray()
                w = sink.writer
                w.key("zoneID"); enc.zoneID(c.zoneID, &w)
                w.field("syncToken", c.syncToken)
                w.field("moreComing", c.moreComing)
                w.endObject()
            } catch {
                if spilledHere { throw error }
                w.rollback(to: mark)
                enc.error(StratusError.wrapping(error).concerning(zone: zoneID), &w)
            }
        }
        w.endArray()
        w.endObject()
        return try AnswerWriter.response(&w, spool: spool)
    }
}
