import Foundation
import StratusModel
import Synchronization

/// Injected faults (see `Fault`), in the control database so that `stratus faults` in another process and the
/// admin endpoint reach a running server alike; the server reads them through a cache a quarter of a second old
/// at most, so a request with no fault switched on costs one atomic read.
public final class FaultStore: Sendable {
    let control: any SQLDatabase
    let registry: EnvironmentRegistry
    /// The faults switched on, as read at most a quarter of a second ago (see `claimFault`).
    private let faultCache = Mutex<(at: ContinuousClock.Instant, faults: [Fault])?>(nil)
    /// Until when (`DispatchTime` nanoseconds) the cache holds that no fault is on at all: the everyday case, read
    /// by every request without the lock, which 64 requests at once on two cores had queued on.
    private let quietUntil = Atomic<UInt64>(0)

    init(control: any SQLDatabase, registry: EnvironmentRegistry) {
        self.control = control
        self.registry = registry
    }

    /// The longest a fault may stay switched on (it can always be cleared sooner).
    public static let maximumFaultLifetime: Int64 = 24 * 3600 * 1000

    /// Switches a fault on after checking it: a known operation, exactly one of a count (1…1,000,000) or a
    /// probability (0…1], a retryAfter of 0…3,600 s, latency of 0…60,000 ms, a lifetime of at most a day.
    /// A fault on Production needs `allowProduction` (`--allow-production-admin`): it fails real users' requests.
    @discardableResult
    public func addFault(_ f: Fault, allowProduction: Bool = false) throws(StratusError) -> Fault {
        if f.environment == .production && !allowProduction { throw ServerStore.productionAdminRefusal("faults") }
        guard f.operation == "*" || Fault.operations.contains(f.operation) else {
            throw .badRequest("unknown operation '\(f.operation.prefix(60))': use * or one of \(Fault.operations.joined(separator: ", "))")
        }
        guard (f.remaining == nil) != (f.probability == nil) else { throw .badRequest("a fault needs either a count or a probability, not both") }
        if let n = f.remaining, !(1...1_000_000).contains(n) { throw .badRequest("count must be 1 to 1000000") }
        if let p = f.probability, !(p > 0 && p <= 1) { throw .badRequest("probability must be more than 0 and at most 1") }
        if let r = f.retryAfter, !(0...3600).contains(r) { throw .badRequest("retry-after must be 0 to 3600 seconds") }
        guard (0...60_000).contains(f.latencyMilliseconds) else { throw .badRequest("latency must be 0 to 60000 ms") }
        guard f.kind != .none || f.latencyMilliseconds > 0 else { throw .badRequest("a fault with error NONE needs latency") }
        guard f.expiresAt > f.createdAt, f.expiresAt - f.createdAt <= Self.maximumFaultLifetime else { throw .badRequest("a fault lasts at most a day") }
        for (what, v) in [("user", f.user), ("zone", f.zone), ("record type", f.recordType), ("record name",
                f.recordName)] {
            if let v, v.isEmpty || v.utf8.count > 255 { throw .badRequest("the \(what) a fault names must be 1 to 255 bytes") }
        }
        if f.stage == .perRecord && f.operation != CloudKitOperation.recordsModify.rawValue {
            throw .badRequest("a per-record fault is for records/modify, whose batches it fails a record at a time")
        }
        if f.stage == .perRecord && f.kind.errorCode == nil {
            throw .badRequest("a per-record fault fails records with an error: \(f.kind.rawValue) has none")
        }
        if f.kind == .conflict {
            guard f.stage == .perRecord, f.recordName != nil else {
                throw .badRequest("the conflict lab names the record (--conflict-on RECORD) whose next save meets a concurrent write")
            }
        }
        if let text = f.serverFields {
            guard text.utf8.count <= 64 * 1024, let o = (try? JSON.parse(Data(text.utf8)))?.object,
                  o.values.allSatisfy({ $0["value"] != nil }) else {
                throw .badRequest("server fields are CloudKit's field JSON: {\"title\":{\"value\":\"x\",\"type\":\"STRING\"}}")
            }
        }
        if f.kind == .userDeletedZone, f.zone == nil { throw .badRequest("a USER_DELETED_ZONE fault names the zone it purges (--zone)") }
        guard try registry.containerExists(f.container) else { throw StratusError(.notFound,
                "container \(f.container) does not exist") }
        let id: Int64 = try guarded {
            try control.write { s in try FaultRows.insert(f, s) }
        }
        faultsChanged()
        var out = f
        out.id = id
        return out
    }

    /// Faults of a container (or every container), newest first, expired and spent ones included.
    public func all(container: ContainerID? = nil) throws(StratusError) -> [Fault] {
        try guarded {
            try control.read { s in try FaultRows.all(container: container, s) }
        }
    }

    /// Clears one fault (by id), or every fault of a container environment.
    public func clearFaults(id: Int64? = nil, container: ContainerID? = nil,
                            environment: ContainerEnvironment? = nil) throws(StratusError) {
        try guarded {
            try control.write { s in try FaultRows.delete(id: id, container: container, environment: environment, s) }
        }
        faultsChanged()
    }

    /// Drops the cached faults here and on every other server on the same PostgreSQL database.
    private func faultsChanged() {
        dropCache()
        registry.invalidation.publish("faults")
    }

    /// Forgets the cached faults (this server changed them, or another told it it did).
    func dropCache() {
        quietUntil.store(0, ordering: .releasing)
        faultCache.withLock { $0 = nil }
    }

    /// Whether a request for `operation` may meet a fault: false (from memory alone, no I/O) when the cache is fresh
    /// and holds none that matches, which is every request of a server with no fault on but 4 a second.
    public func mightFault(_ container: ContainerID, _ environment: ContainerEnvironment,
                           _ operation: CloudKitOperation) -> Bool {
        if DispatchTime.now().uptimeNanoseconds < quietUntil.load(ordering: .acquiring) { return false }
        let now = WallClock.nowMillis(), operation = operation.rawValue
        return faultCache.withLock { c in
            guard let c, ContinuousClock.now - c.at < .milliseconds(250) else { return true }
            return c.faults.contains { $0.matches(container, environment, operation, now: now) }
        }
    }

    /// The fault a request for `operation` meets, if one fires for it (counting it as matched, and as injected
    /// when it fires). The common case, no fault on, reads the cache only.
    public func claimFault(_ container: ContainerID, _ environment: ContainerEnvironment,
                           _ operation: CloudKitOperation, stage: Fault.Stage = .before,
                           target: Fault.Target = Fault.Target()) -> Fault? {
        let now = WallClock.nowMillis(), operation = operation.rawValue
        let cached = faultCache.withLock { c -> [Fault]? in
            guard let c, ContinuousClock.now - c.at < .milliseconds(250) else { return nil }
            return c.faults
        }
        let active: [Fault]
        if let cached { active = cached } else {
            active = (try? guarded {
                try control.read { s in try FaultRows.live(at: now, s) }
            }) ?? []
            let read = DispatchTime.now().uptimeNanoseconds
            faultCache.withLock { $0 = (ContinuousClock.now, active) }
            // As with the cache, a fault switched on while this read ran is seen within a quarter of a second.
            if active.isEmpty { quietUntil.store(read + 250_000_000, ordering: .releasing) }
        }
        guard let candidate = active.first(where: { $0.stage == stage && $0.matches(container, environment, operation,
                now: now) && $0.covers(target) }) else { return nil }
        let fired: Fault? = try? guarded {
            try control.write { s -> Fault? in
                guard let n = try FaultRows.match(id: candidate.id, at: now, s) else { return nil }
                guard candidate.fires(at: Int(n) - 1) else { return nil }
                try FaultRows.fired(id: candidate.id, s)
                return candidate
            }
        }
        if fired != nil { faultsChanged() }
        return fired ?? nil
    }
}
