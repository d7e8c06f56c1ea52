import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension FaultsCommand {
    struct Set: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Switch a fault on: --count N requests, or each with --probability P (with --seed for a replayable run).")
        @OptionGroup var target: EnvironmentOptions
        @Option(help: "The CloudKit operation (records/modify, zones/list, …) or * for all.") var operation: String?
        @Option(help: "ZONE_BUSY, THROTTLED, SERVICE_UNAVAILABLE, INTERNAL_ERROR, QUOTA_EXCEEDED, LIMIT_EXCEEDED, CHANGE_TOKEN_EXPIRED, USER_DELETED_ZONE, ZONE_NOT_FOUND, NETWORK_DROP, or NONE (latency only).")
        var error: String?
        @Option(name: .customLong("where"),
                help: "before (the request fails), after-commit (the write lands, its answer is lost or replaced), or per-record (records of a records/modify batch fail alone).")
        var stage: String = "before"
        @Option(help: "Only this user's requests (user record name).") var user: String?
        @Option(help: "Only requests into this zone.") var zone: String?
        @Option(help: "Only requests about this record type.") var recordType: String?
        @Option(help: "Only requests about this record name.") var recordName: String?
        @Option(help: "The conflict lab: the next save of this record meets a concurrent write (CONFLICT with that server record).") var conflictOn: String?
        @Option(help: "The conflict lab's concurrent write, in CloudKit's field JSON: {\"title\":{\"value\":\"x\",\"type\":\"STRING\"}}.") var serverFields: String?
        @Option(help: "Fail the next N matching requests.") var count: Int?
        @Option(help: "Fail each matching request with this probability (0 < P ≤ 1).") var probability: Double?
        @Option(help: "The seed of the probability's draws (the same seed, the same requests fail).") var seed: UInt64 = 1
        @Option(help: "Seconds the error tells the client to wait (retryAfter and Retry-After).") var retryAfter: Int?
        @Option(help: "Milliseconds to wait before answering (or failing).") var latencyMs: Int = 0
        @Option(help: "Seconds until the fault switches itself off (at most a day).") var expiresIn: Int = 3600
        @Flag(help: "Allow a fault on Production: it fails real users' requests.") var allowProductionAdmin = false

        func run(_ t: EnvironmentTarget) throws {
            let errorName = error ?? (conflictOn != nil ? Fault.Kind.conflict.rawValue : "")
            guard let kind = Fault.Kind(rawValue: errorName) else {
                throw StratusError.badRequest("unknown error '\(errorName.prefix(40))': use one of \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard var where_ = Fault.Stage(rawValue: stage) else { throw StratusError.badRequest("--where must be before, after-commit or per-record") }
            if conflictOn != nil { where_ = .perRecord }
            guard let op = operation ?? (conflictOn != nil ? "records/modify" : nil) else { throw StratusError.badRequest("name the --operation (or * for all)") }
            let now = WallClock.nowMillis()
            var fault = Fault(container: t.container, environment: t.environment,
                              operation: op, kind: kind, remaining: probability == nil ? (count ?? (conflictOn != nil ? 1 : nil)) : count,
                              probability: probability, seed: seed, retryAfter: retryAfter, latencyMilliseconds: latencyMs,
                              createdAt: now, expiresAt: try Fault.expiry(createdAt: now, afterSeconds: expiresIn))
            fault.stage = where_
            fault.user = user
            fault.zone = zone
            fault.recordType = recordType
            fault.recordName = conflictOn ?? recordName
            fault.serverFields = serverFields
            let f = try t.store.faults.addFault(fault, allowProduction: allowProductionAdmin)
            try audited(t.store, "add fault", container: f.container.rawValue, environment: f.environment.rawValue,
                        detail: "\(f.kind.rawValue) on \(f.operation) (fault \(f.id))")
            print("fault \(f.id): \(f.kind.rawValue) on \(f.operation) of \(f.container)/\(f.environment.rawValue)" + (f.stage == .before ? "" : " (\(f.stage.rawValue))"))
        }
    }
}
