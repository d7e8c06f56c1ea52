import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Faults an admin switched on (see `Fault`), where real ones hit: before the request is carried out, after it
/// committed (its answer lost or replaced), or on single records of a `records/modify` batch (`perRecordFaults`).
extension CloudKitAPI {
    /// A request while some fault might match it: the caller is known first, so a fault can be scoped to a user,
    /// zone, record type or record name.
    func handleWithFaults(_ operation: Operation,
                          _ authorize: @escaping @Sendable () throws -> CloudKitRequest) async throws -> HTTPResponse {
        let api = self, action = operation.operation
        let ctx = try await blocking.run { try authorize() }
        let target = Self.faultTarget(ctx)
        if let injected = try await inject(action, ctx, stage: .before, target: target) { return injected }
        let response = try await blocking.run { api.withSession(try operation.run(api, ctx), ctx) }
        // After a failed request nothing was committed, so there is no answer to lose.
        guard response.status.code < 300, let replaced = try await inject(action, ctx, stage: .afterCommit,
                target: target) else { return response }
        return replaced
    }

    /// The fault of `stage` that fires for this request, applied: its latency, then its error in CloudKit's envelope
    /// (with `retryAfter`), a dropped connection, or (USER_DELETED_ZONE) the zone purged; nil when none fires or
    /// the request should go on.
    func inject(_ action: CloudKitOperation, _ ctx: CloudKitRequest, stage: Fault.Stage,
                target: Fault.Target) async throws -> HTTPResponse? {
        let store = self.store
        let (container, environment) = (ctx.container, ctx.environment)
        guard let fault = try await blocking.run({ store.faults.claimFault(container, environment, action, stage: stage,
                target: target) }) else { return nil }
        if fault.latencyMilliseconds > 0 { try? await Task.sleep(for: .milliseconds(fault.latencyMilliseconds)) }
        // The annotation tells the request log and telemetry that this error was asked for.
        let note = stage == .before ? fault.kind.rawValue : "\(fault.kind.rawValue) \(stage.rawValue)"
        if fault.kind == .networkDrop {
            var r = HTTPResponse.dropConnection
            r.annotations["fault"] = note
            return r
        }
        if fault.kind == .userDeletedZone, let zone = fault.zone, ctx.database == .private {
            // As if the user deleted the app's data: the zone is purged, and the request meets that.
            let database = ctx.databaseID
            try? await blocking.run { try store.environment(container,
                                                            environment).zones.purgeZone(ZoneID(zoneName: zone,
                    ownerRecordName: database.ownerRecordName), in: database) }
            if stage == .before { return nil }
        }
        guard let code = fault.kind.errorCode else { return nil }
        var r = envelope(StratusError(code,
                                      "injected fault \(fault.id) (\(fault.kind.rawValue) on \(fault.operation), \(stage.rawValue))", retryAfter: fault.retryAfter))
        r.annotations["fault"] = note
        return r
    }

    /// What a request is about: its user, the zones, record types and record names its body names.
    static func faultTarget(_ ctx: CloudKitRequest) -> Fault.Target {
        var t = Fault.Target(user: ctx.auth.userRecordName)
        let b = ctx.body
        if let z = b["zoneID"]?["zoneName"]?.string { t.zones.append(z) } else { t.zones.append(ZoneID.defaultZoneName) }
        for z in b["zones"]?.array ?? [] {
            if let name = (z["zoneID"] ?? z)["zoneName"]?.string { t.zones.append(name) }
            if let name = z["zone"]?["zoneID"]?["zoneName"]?.string { t.zones.append(name) }
        }
        for op in b["operations"]?.array ?? [] {
            if let n = op["record"]?["recordName"]?.string { t.recordNames.append(n) }
            if let ty = op["record"]?["recordType"]?.string { t.recordTypes.append(ty) }
            if let name = op["zone"]?["zoneID"]?["zoneName"]?.string { t.zones.append(name) }
        }
        for r in b["records"]?.array ?? [] { if let n = r["recordName"]?.string { t.recordNames.append(n) } }
        if let ty = b["query"]?["recordType"]?.string { t.recordTypes.append(ty) }
        return t
    }
}

extension CloudKitAPI {
    /// The records of a batch that a per-record fault hits, with the error each meets. The conflict lab's fault
    /// writes its server fields to the record first (as a concurrent save from another device, with a new change
    /// tag) and lets the client's operation go on, so that it meets CONFLICT with that server record.
    func perRecordFaults(_ operations: [RecordOperation], zone: ZoneID,
                         _ ctx: CloudKitRequest) throws -> [Int: StratusError] {
        var failed: [Int: StratusError] = [:]
        for (i, op) in operations.enumerated() {
            let target = Fault.Target(user: ctx.auth.userRecordName, zones: [zone.zoneName],
                                      recordTypes: [op.record.recordType], recordNames: [op.record.recordName])
            guard let fault = store.faults.claimFault(ctx.container, ctx.environment, .recordsModify, stage: .perRecord,
                                                      target: target) else { continue }
            if fault.kind == .conflict {
                var doc: [String: JSON] = ["recordName": .string(op.record.recordName),
                                           "recordType": .string(op.record.recordType)]
                if let text = fault.serverFields, let fields = try? JSON.parse(Data(text.utf8)) { doc["fields"] = fields }
                let server = try WireDecoding.record(.object(doc), defaultZone: zone)
                _ = try env(ctx).records.modify([RecordOperation(.forceUpdate, server)], in: ctx.databaseID,
                                                zoneID: zone,
                                        actor: RequestActor(userRecordName: ctx.auth.userRecordName ?? RequestActor.system.userRecordName, deviceID: "conflict-lab"))
                continue
            }
            guard let code = fault.kind.errorCode else { continue }
            failed[i] = StratusError(code,
                                     "injected fault \(fault.id) (\(fault.kind.rawValue) on record \(op.record.recordName))",
                                     recordName: op.record.recordName, retryAfter: fault.retryAfter)
        }
        return failed
    }
}
