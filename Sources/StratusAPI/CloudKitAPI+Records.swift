import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// The records resource: `records/query`, `lookup`, `modify` and `changes`.
    static let recordOperations = [
        Operation(.recordsQuery) { try $0.recordsQuery($1) },
        Operation(.recordsLookup) { try $0.recordsLookup($1) },
        Operation(.recordsModify) { try $0.recordsModify($1) },
        Operation(.recordsChanges) { try $0.recordsChanges($1) },
    ]

    func env(_ ctx: CloudKitRequest) throws -> EnvironmentStore { ctx.store }

    /// The actor stamped on records: the signed-in user (or the token's anonymous caller, which may not write).
    func actor(_ ctx: CloudKitRequest) -> RequestActor { RequestActor(userRecordName: ctx.auth.userRecordName ?? "_anonymous", deviceID: "iCloud") }

    func recordsQuery(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let b = ctx.body
        let zoneWide = try b.bool("zoneWide") ?? false
        let zone: ZoneID? = (zoneWide && b["zoneID"] == nil) ? nil : try WireDecoding.zoneID(b["zoneID"])
        let limit = try WireDecoding.int(b["resultsLimit"], "resultsLimit") ?? Query.maximumResults
        guard limit >= 1 else { throw StratusError.badRequest("resultsLimit must be at least 1") }
        if b["query"]?["recordType"]?.string == UserRecord.recordType {
            throw StratusError.badRequest("Users records cannot be queried, as in CloudKit: fetch one by its record ID (a user record name)")
        }
        let query = try WireDecoding.query(b["query"], zone: zone, limit: min(limit, Query.maximumResults),
                                           marker: try b.string("continuationMarker"), desiredKeys: try WireDecoding.stringList(b["desiredKeys"], "desiredKeys"),
                                           timestamps: ctx.timestamps)
        // Records go from the rows straight into the response, and past a few hundred kilobytes into its spool.
        let spool = answerSpool(ctx)
        var sink = WireRecordSink(encoding: encoding(ctx), writer: JSONWriter(capacity: 64 * 1024), spool: spool)
        sink.writer.beginObject()
        sink.writer.key("records")
        sink.writer.beginArray()
        let marker = try env(ctx).records.query(query, in: ctx.databaseID, caller: ctx.auth.caller, into: &sink)
        try sink.checkSpool()
        sink.writer.endArray()
        if let marker { sink.writer.field("continuationMarker", marker) }
        sink.writer.endObject()
        return try AnswerWriter.response(&sink.writer, spool: spool)
    }

    /// A batch request's items (at most the request limit), its zone and its `desiredKeys`.
    static func batch(_ b: JSON, _ key: String, _ needs: String) throws -> (items: [JSON], zone: ZoneID,
            desired: [String]?) {
        guard let items = try b.array(key) else { throw StratusError.badRequest(needs) }
        try RequestLimits.check(items.count, key)
        return (items, try WireDecoding.zoneID(b["zoneID"]), try WireDecoding.stringList(b["desiredKeys"],
                "desiredKeys"))
    }

    func recordsLookup(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let (items, zone, desired) = try Self.batch(ctx.body, "records", "records/lookup needs records: [{recordName}]")
        var names: [String] = []
        var perItemKeys: [[String]?] = []
        for item in items {
            guard let n = item["recordName"]?.string else { throw StratusError.badRequest("each lookup item needs a recordName") }
            names.append(n)
            perItemKeys.append(try WireDecoding.stringList(item["desiredKeys"], "desiredKeys"))
        }
        if desired == nil, perItemKeys.allSatisfy({ $0 == nil }), let answer = try streamedLookup(ctx, names, zone) {
            return answer
        }
        var results = try env(ctx).records.lookup(names, in: ctx.databaseID, zoneID: zone, desiredKeys: nil,
                                                  caller: ctx.auth.caller)
        // The caller's own user record exists from the first time they ask for it (see `UserRecord`).
        if let me = ctx.auth.userRecordName, zone.isDefault, ctx.database != .shared {
            for (i, r) in results.enumerated() where names[i] == me {
                if case .failure(let e) = r, e.code == .notFound { results[i] = .success(try env(ctx).records.userRecord(of: me, in: ctx.databaseID)) }
            }
        }
        // Share records are looked up by name too (CloudKit JS fetches a root's `share` that way).
        let missing = results.enumerated().compactMap { i, r -> String? in
            if case .failure(let e) = r, e.code == .notFound { return names[i] }
            return nil
        }
        let shares = try env(ctx).sharing.shares(named: missing, in: ctx.databaseID, zoneID: zone)
        let enc = encoding(ctx)
        return try spooledList(ctx, "records", results.enumerated()) { item, w in
            let (i, r) = item
            switch r {
            case .success(let rec): enc.record(rec.keeping(perItemKeys[i] ?? desired), &w)
            case .failure(let e):
                if let share = shares[names[i]] { enc.share(share, viewer: ctx.auth.userRecordName,
                                                            &w) } else { enc.error(e, &w) }
            }
        }
    }

    /// The usual lookup (every record found and readable, all fields) written from the rows as they are read, as a
    /// query page is; nil when the store could not answer it so (see `StoredRecords.lookup(_:in:zoneID:caller:
    /// streamingInto:)`), and then the answer is built the long way.
    private func streamedLookup(_ ctx: CloudKitRequest, _ names: [String], _ zone: ZoneID) throws -> HTTPResponse? {
        let spool = answerSpool(ctx)
        var sink = WireRecordSink(encoding: encoding(ctx), writer: JSONWriter(capacity: 4096), spool: spool)
        sink.writer.beginObject()
        sink.writer.key("records")
        sink.writer.beginArray()
        guard try env(ctx).records.lookup(names, in: ctx.databaseID, zoneID: zone, caller: ctx.auth.caller,
                                          streamingInto: &sink) else {
            spool.close()
            return nil
        }
        try sink.checkSpool()
        sink.writer.endArray()
        sink.writer.endObject()
        return try AnswerWriter.response(&sink.writer, spool: spool)
    }

    func recordsModify(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        let b = ctx.body
        let (ops, zone, desired) = try Self.batch(b, "operations",
                                                  "records/modify needs operations: [{operationType, record}]")
        guard ctx.auth.userRecordName != nil else {
            var e = StratusError.authenticationRequired("writing records needs a signed-in user")
            e.redirectURL = signInURL(ctx.request, container: ctx.container, environment: ctx.environment)
            throw e
        }
        let operations = try decodeOperations(ops, zone: zone, desiredKeys: desired, ctx)
        let atomic = try ctx.body.bool("atomic") ?? false
        let (results, injectedNote) = try applyModify(operations, zone: zone, atomic: atomic, ctx)
        let enc = encoding(ctx)
        var response = try spooledList(ctx, "records", results) { r, w in
            switch r {
            case .saved(let rec): enc.record(rec, &w)
            case .savedShare(let share): enc.share(share, viewer: ctx.auth.userRecordName, &w)
            case .deleted(let name, let z): enc.deletedRecord(name, zone: z, &w)
            case .failed(let e): enc.error(e, &w)
            }
        }
        // The request log shows that records of this batch failed on purpose.
        if let injectedNote { response.annotations["fault"] = injectedNote }
        return response
    }

    /// The batch's operations as the store takes them (a create without a name gets one).
    private func decodeOperations(_ ops: [JSON], zone: ZoneID, desiredKeys desired: [String]?,
                                  _ ctx: CloudKitRequest) throws -> [RecordOperation] {
        var operations: [RecordOperation] = []
        operations.reserveCapacity(ops.count)
        for op in ops {
            guard let t = op["operationType"]?.string, let type = OperationType(rawValue: t) else {
                throw StratusError.badRequest("unknown operationType '\((op["operationType"]?.string ?? "").prefix(30))'")
            }
            var record = try WireDecoding.record(op["record"], defaultZone: zone, timestamps: ctx.timestamps)
            if record.recordName.isEmpty && type.createsWhenMissing { record.recordName = UUID().uuidString }
            var operation = RecordOperation(type, record, desiredKeys: try WireDecoding.stringList(op["desiredKeys"],
                    "desiredKeys") ?? desired)
            operation.share = try WireDecoding.shareRequest(op["record"])
            operation.parentZone = try WireDecoding.parentZone(op["record"])
            operation.removedFields = WireDecoding.removedFields(op["record"])
            operation.encryptedFields = WireDecoding.encryptedFields(op["record"])
            operations.append(operation)
        }
        return operations
    }

    /// Applies the batch: per-record faults (see `Fault.Stage.perRecord`) fail the records they hit alone and the
    /// rest go on (an atomic batch fails whole); returns each operation's result, in order, and the faults' note
    /// for the request log.
    private func applyModify(_ operations: [RecordOperation], zone: ZoneID, atomic: Bool,
                             _ ctx: CloudKitRequest) throws -> ([ModifyResult], String?) {
        let (store, container) = (store, ctx.container)
        let injected = store.faults.mightFault(ctx.container, ctx.environment,
                                               .recordsModify) ? try perRecordFaults(operations, zone: zone, ctx) : [:]
        let injectedNote = injected.isEmpty ? nil : Set(injected.values.map(\.code.rawValue)).sorted().joined(separator: ",") + " per-record"
        var remaining = operations.indices.filter { injected[$0] == nil }
        if atomic && !injected.isEmpty { remaining = [] }
        var applied: [ModifyResult] = []
        do {
            applied = remaining.isEmpty ? [] : try env(ctx).records.modify(remaining.map { operations[$0] },
                    in: ctx.databaseID, zoneID: zone, atomic: atomic,
                                                                   actor: actor(ctx), caller: ctx.auth.caller, requireAssetReceipts: true, users: { lookup in
                switch lookup {
                case .emailAddress(let e): (try? store.accounts.user(container: container, email: e)) ?? nil
                case .userRecordName(let u): (try? store.accounts.user(container: container, userRecordName: u)) ?? nil
                }
            })
        } catch let e as StratusError where e.code == .zoneNotFound || e.code == .userDeletedZone {
            // A zone that is not there fails each record, as CloudKit reports it (a partial failure whose items are
            // ZONE_NOT_FOUND), so that the app's per-record handling sees it and recreates the zone.
            applied = remaining.map { i in
                var perRecord = e
                perRecord.recordName = operations[i].record.recordName
                return .failed(perRecord)
            }
        }
        var results: [ModifyResult] = operations.indices.map { i in
            injected[i].map { .failed($0) }
                ?? .failed(StratusError(.atomicError,
                                        "the atomic batch failed: an injected fault refused one of its records",
                        recordName: operations[i].record.recordName))
        }
        for (k, i) in remaining.enumerated() where k < applied.count { results[i] = applied[k] }
        return (results, injectedNote)
    }

    /// `records/changes`: one zone's changes since a sync token (private and shared databases only, as CloudKit).
    func recordsChanges(_ ctx: CloudKitRequest) throws -> HTTPResponse {
        guard ctx.database != .public else { throw StratusError.badRequest("records/changes is for private and shared databases") }
        let b = ctx.body
        guard b["zoneID"] != nil else { throw StratusError.badRequest("records/changes needs a zoneID") }
        let zone = try WireDecoding.zoneID(b["zoneID"])
        try Self.refuseDefaultZoneChanges(zone)
        let changes = try env(ctx).zones.zoneChanges(in: ctx.databaseID, zoneID: zone, since: try b.string("syncToken"),
                                               resultsLimit: try WireDecoding.int(b["resultsLimit"],
                                                       "resultsLimit") ?? Query.maximumResults,
                                               desiredKeys: try WireDecoding.stringList(b["desiredKeys"],
                                                       "desiredKeys"))
        let enc = encoding(ctx)
        var answer = AnswerWriter(spool: answerSpool(ctx))
        answer.json.beginObject()
        answer.json.key("records")
        answer.json.beginArray()
        for r in changes.changed {
            enc.record(r, &answer.json)
            try answer.checkpoint()
        }
        for (i, name) in changes.deleted.enumerated() {
            enc.deletedRecord(name, zone: changes.zoneID,
                              recordType: i < changes.deletedRecordTypes.count ? changes.deletedRecordTypes[i] : nil,
                    &answer.json)
        }
        answer.json.endArray()
        answer.json.field("syncToken", changes.syncToken)
        answer.json.field("moreComing", changes.moreComing)
        answer.json.field("reverse", false)
        answer.json.endObject()
        return try answer.response()
    }
}
