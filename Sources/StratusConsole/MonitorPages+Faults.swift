import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Faults: make this environment misbehave on purpose so that client retry code meets CloudKit's transient errors
/// in tests (see `Fault`). Listed with what is left and how often each fired; switched on and cleared here, by
/// `stratus faults` or over `/-/admin/faults`. Every change is audited.
extension MonitorPages {
    func faultsPage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let now = WallClock.nowMillis()
        let faults = try store.faults.all(container: scope.container).filter { $0.environment == scope.environment }.map { f in
            FaultsView.Fault(id: String(f.id), operation: f.operation, error: f.kind.rawValue, where: f.stage.rawValue,
                             scope: [f.user.map { "user \($0)" }, f.zone.map { "zone \($0)" }, f.recordType.map { "type \($0)" }, f.recordName.map { "record \($0)" }]
                                .compactMap { $0 }.joined(separator: ", "),
                             rule: f.remaining.map { "next \($0) requests" } ?? "each with probability \(f.probability ?? 0), seed \(f.seed)",
                             retryAfter: f.retryAfter.map { "\($0) s" } ?? "—", latency: f.latencyMilliseconds > 0 ? "\(f.latencyMilliseconds) ms" : "—",
                             injected: f.injected, state: now >= f.expiresAt ? "expired" : (f.remaining == 0 ? "spent" : "on"),
                             expires: ValueDisplay.utcString(f.expiresAt), clearAction: scope.paths.clearFault(f.id))
        }
        let view = FaultsView(faults: faults, hasFaults: !faults.isEmpty, addAction: scope.paths.faults(), operations: ["*"] + Fault.operations,
                              errors: Fault.Kind.allCases.map(\.rawValue), stages: Fault.Stage.allCases.map(\.rawValue), error: error, message: req.query("done"))
        let json = ["faults": faults.map { FaultsView.FaultJSON(id: $0.id, operation: $0.operation, error: $0.error, injected: $0.injected, state: $0.state) }]
        return page(r, tab: .faults, "faults", title: "Faults", view, json: json, status: error == nil ? .ok : .badRequest)
    }

    /// `faults.mustache`.
    struct FaultsView: Encodable {
        struct Fault: Encodable {
            let id, operation, error, `where`, scope, rule, retryAfter, latency: String
            let injected: Int
            let state, expires, clearAction: String
        }
        struct FaultJSON: Encodable { let id, operation, error: String; let injected: Int; let state: String }
        let faults: [Fault]
        let hasFaults: Bool
        let addAction: String
        let operations, errors, stages: [String]
        let error, message: String?
    }

    func addFault(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        func number(_ k: String) -> String? { f[k].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 } }
        do {
            guard let kind = Fault.Kind(rawValue: f["error"] ?? "") else { throw StratusError.badRequest("choose an error") }
            let count = try number("count").map { (v: String) throws(StratusError) -> Int in
                guard let n = Int(v) else { throw .badRequest("count must be a whole number") }
                return n
            }
            let probability = try number("probability").map { (v: String) throws(StratusError) -> Double in
                guard let p = Double(v) else { throw .badRequest("probability must be a number") }
                return p
            }
            let now = WallClock.nowMillis()
            var fault = Fault(container: scope.container, environment: scope.environment, operation: f["operation"] ?? "", kind: kind,
                              remaining: count, probability: probability, seed: UInt64(number("seed") ?? "1") ?? 1,
                              retryAfter: number("retryAfter").flatMap { Int($0) }, latencyMilliseconds: number("latencyMs").flatMap { Int($0) } ?? 0,
                              createdAt: now, expiresAt: try Fault.expiry(createdAt: now, afterSeconds: try number("expiresIn").map { (v: String) throws(StratusError) -> Int in
                                  guard let n = Int(v) else { throw .badRequest("expires in must be a whole number of seconds") }
                                  return n
                              } ?? 3600))
            guard let stage = Fault.Stage(rawValue: f["where"] ?? "before") else { throw StratusError.badRequest("choose where the fault hits") }
            fault.stage = stage
            fault.user = number("user")
            fault.zone = number("zone")
            fault.recordType = number("recordType")
            fault.recordName = number("recordName")
            fault.serverFields = number("serverFields")
            fault = try store.faults.addFault(fault, allowProduction: console.allowProductionAdmin)
            try audit(s, scope, "inject fault", "#\(fault.id) \(fault.kind.rawValue) \(fault.stage.rawValue) on \(fault.operation)")
            return .redirect(to: scope.paths.faults(done: "Fault #\(fault.id) is on: \(fault.kind.rawValue) on \(fault.operation)."))
        } catch let e as StratusError where e.code == .badRequest || e.code == .accessDenied {
            return try faultsPage(r, error: e.reason)
        }
    }

    func clearFault(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        guard let id = Int64(req.parameters["id"] ?? ""), try store.faults.all(container: scope.container).contains(where: { $0.id == id && $0.environment == scope.environment }) else {
            throw StratusError(.notFound, "There is no such fault in this environment.")
        }
        try store.faults.clearFaults(id: id)
        try audit(s, scope, "clear fault", "#\(id)")
        return .redirect(to: scope.paths.faults(done: "Cleared fault #\(id)."))
    }
}
