import Crypto
import Foundation
import StratusModel
import StratusPostgres
import Synchronization

/// The container environments a store has open: each opened once (migrations and all) and shared, and closed
/// with the store. Every part of the store that reaches into an environment (sign-outs revoking its courier
/// tokens, deploys, snapshots) goes through it.
final class EnvironmentRegistry: Sendable {
    /// Where a SQLite store keeps its files; nil on PostgreSQL.
    let dataDirectory: URL?
    /// The PostgreSQL pool of a store on PostgreSQL, shared by every environment.
    let postgres: PostgresPool?
    let control: any SQLDatabase
    let durability: Durability
    let quotaBytes, userQuotaBytes: Int64?
    let bell: NotificationBell
    let notificationPolicy: NotificationPolicy
    let autoIndexPolicy: AutoIndexPolicy
    /// On PostgreSQL: what one server changes, the others stop caching (see `CacheInvalidation`).
    let invalidation = CacheInvalidation()
    /// The notification fan-out of every environment (see `NotificationFanOut`); its sweep looks at the open ones.
    let fanOut = NotificationFanOut()
    private let open: Mutex<[EnvironmentKey: EnvironmentStore]> = Mutex([:])
    /// Held while an environment is being opened (see `environment(_:_:)`).
    private let opening = Mutex(())

    /// An open environment's key, hashed without building a string per request.
    struct EnvironmentKey: Hashable {
        let container: ContainerID
        let environment: ContainerEnvironment
    }

    init(dataDirectory: URL?, postgres: PostgresPool?, control: any SQLDatabase, durability: Durability,
         quotaBytes: Int64?, userQuotaBytes: Int64?,
         bell: NotificationBell, notificationPolicy: NotificationPolicy, autoIndexPolicy: AutoIndexPolicy) {
        self.dataDirectory = dataDirectory
        self.postgres = postgres
        self.control = control
        self.durability = durability
        self.quotaBytes = quotaBytes
        self.userQuotaBytes = userQuotaBytes
        self.bell = bell
        self.notificationPolicy = notificationPolicy
        self.autoIndexPolicy = autoIndexPolicy
        fanOut.sweeping { [weak self] in self?.openEnvironments().map(\.notifications) ?? [] }
    }

    func containerExists(_ id: ContainerID) throws(StratusError) -> Bool {
        try guarded { try control.read { s in try ContainerRows.exists(id, s) } }
    }

    func directory(of id: ContainerID) -> URL {
        (dataDirectory ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("containers").appendingPathComponent(id.rawValue)
    }

    /// The environments open in this process (the ones its writes can have queued work in).
    func openEnvironments() -> [EnvironmentStore] { open.withLock { Array($0.values) } }

    /// Takes a container's environments out of the open ones and closes them (the container is being deleted).
    func close(_ id: ContainerID) {
        let closing = open.withLock { cache in ContainerEnvironment.allCases.compactMap { env in cache.removeValue(forKey: EnvironmentKey(container: id, environment: env)) } }
        for env in closing { env.close() }
    }

    /// Closes every open environment; the next use opens them afresh (their catalog, secret and caches read anew,
    /// as after `stratus migrate` wrote them underneath). Each closes once the operations inside it are done
    /// (see `GatedDatabase`).
    func closeAll() {
        let envs = open.withLock { o in defer { o.removeAll() }; return Array(o.values) }
        for env in envs { env.close() }
    }

    /// Closes the environments nobody has asked for in `span` and nobody holds now (a request, a stream, a delivery
    /// pass each hold the one they use): a server that has served a thousand containers keeps open only the ones in
    /// use, and the next request to another opens it again. Returns how many were closed.
    @discardableResult
    func releaseIdle(after span: Duration) -> Int {
        let c = span.components
        let nanos = c.seconds * 1_000_000_000 + c.attoseconds / 1_000_000_000
        let closing: [EnvironmentStore] = opening.withLock { _ in
            open.withLock { o in
                var out: [EnvironmentStore] = []
                for key in Array(o.keys) {
                    guard var env = o.removeValue(forKey: key) else { continue }
                    // Held only here: no request, stream or delivery is using it, and none can take it while the lock
                    // is held.
                    if env.idle(for: nanos) && isKnownUniquelyReferenced(&env) { out.append(env) } else { o[key] = env }
                }
                return out
            }
        }
        for env in closing {
            try? env.notifications.saveCourierProgress()
            env.close()
        }
        return closing.count
    }

    /// The store of one container environment, opened once and shared.
    ///
    /// Opening runs the environment's migrations, so it happens one at a time: the first requests after a start
    /// arrive together, and two openings of one file racing through the same migration failed every request with
    /// "duplicate column" after an upgrade.
    func environment(_ id: ContainerID, _ env: ContainerEnvironment) throws(StratusError) -> EnvironmentStore {
        let key = EnvironmentKey(container: id, environment: env)
        if let s = open.withLock({ $0[key] }) {
            s.touch()
            return s
        }
        return try opening.withLock { _ throws(StratusError) -> EnvironmentStore in
            if let s = open.withLock({ $0[key] }) { return s }
            guard try containerExists(id) else { throw StratusError(.notFound, "container \(id) does not exist") }
            let dir = directory(of: id)
            let backend: EnvironmentStore.Backend = postgres.map { .postgres(pool: $0, schema: Self.schemaName(id,
                    env)) }
                ?? .sqlite(file: dir.appendingPathComponent("\(env.rawValue).sqlite"), durability: durability)
            let store = try guarded {
                try EnvironmentStore(container: id, environment: env, backend: backend,
                                     assetsDirectory: dir.appendingPathComponent("\(env.rawValue)-assets"), quotaBytes: quotaBytes,
                                     userQuotaBytes: userQuotaBytes,
                                     notifications: notificationPolicy, bell: bell, autoIndexPolicy: autoIndexPolicy,
                                     peers: postgres == nil ? nil : invalidation, fanOut: fanOut)
            }
            open.withLock { $0[key] = store }
            return store
        }
    }

    /// The PostgreSQL schema of a container environment: `e_` and 24 hex digits of a hash of its identity (container
    /// identifiers can be longer than PostgreSQL's 63-byte names, and may hold any character).
    static func schemaName(_ id: ContainerID, _ env: ContainerEnvironment) -> String {
        "e_" + Secrets.hex(SHA256.hash(data: Data("\(id.rawValue)/\(env.rawValue)".utf8))).prefix(24)
    }
}
