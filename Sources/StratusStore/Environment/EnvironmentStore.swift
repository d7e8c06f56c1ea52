import Foundation
import StratusModel
import Synchronization

/// One container environment: its public database, every user's private and shared databases, its schema, its
/// change log, subscriptions, notifications and assets — in one SQLite file, or in one schema of a PostgreSQL
/// database (see `EnvironmentDatabase`).
///
/// A small façade: each kind of data has its own store, named for what it holds, and each store keeps the caches
/// of its own data. A store depends only on the ones made before it here.
public final class EnvironmentStore: Sendable {
    let core: EnvironmentDatabase
    public var container: ContainerID { core.container }
    public var environment: ContainerEnvironment { core.environment }

    /// The environment's storage use and quotas.
    public let quota: QuotaStore
    /// Asset content, uploads and signed download URLs.
    public let assets: AssetStore
    /// Webhooks and their deliveries.
    public let webhooks: WebhookStore
    /// Subscriptions, and the index writes match them with.
    public let subscriptions: SubscriptionStore
    /// The notification log, its listeners' bell and the web courier's tokens.
    public let notifications: NotificationStore
    /// Devices registered for APNs pushes.
    public let apns: APNsDeviceStore
    /// The schema, its deployments and custom-role membership.
    public let schema: SchemaStore
    /// Query shapes seen and automatic indexes (SQLite).
    public let queryShapes: QueryShapeStore
    /// Records: modify, lookup, query, export, counts, bulk loads and user records.
    public let records: StoredRecords
    /// Shares: share URLs, acceptance, participants.
    public let sharing: ShareStore
    /// Zones, and the changes of zones and databases since a sync token.
    public let zones: ZoneStore
    /// `stratus check`: the engine's check and Stratus's own invariants.
    public let consistency: ConsistencyCheck

    /// When it was last asked for (nanoseconds of the monotonic clock), so that one unused for a while is closed
    /// and gives back what its connections hold (see `EnvironmentRegistry.releaseIdle`).
    private let lastUsed = Atomic<Int64>(EnvironmentStore.now())
    func touch() { lastUsed.store(Self.now(), ordering: .relaxed) }
    func idle(for nanoseconds: Int64) -> Bool { Self.now() - lastUsed.load(ordering: .relaxed) >= nanoseconds }
    private static func now() -> Int64 { Int64(DispatchTime.now().uptimeNanoseconds) }

    /// Where an environment's data lives.
    typealias Backend = EnvironmentDatabase.Backend

    init(container: ContainerID, environment: ContainerEnvironment, backend: Backend, assetsDirectory: URL,
         quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil, notifications policy: NotificationPolicy = NotificationPolicy(),
         bell: NotificationBell = NotificationBell(), autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy(), peers: CacheInvalidation? = nil,
         fanOut: NotificationFanOut? = nil) throws {
        let core = try EnvironmentDatabase(container: container, environment: environment, backend: backend,
                                           assetsDirectory: assetsDirectory,
                                           quotaBytes: quotaBytes, userQuotaBytes: userQuotaBytes, notifications: policy, bell: bell,
                                           autoIndexPolicy: autoIndexPolicy, peers: peers, fanOut: fanOut)
        self.core = core
        quota = QuotaStore(core: core)
        assets = AssetStore(core: core, quota: quota)
        webhooks = WebhookStore(core: core)
        subscriptions = SubscriptionStore(core: core, quota: quota)
        notifications = NotificationStore(core: core, subscriptions: subscriptions, webhooks: webhooks)
        apns = APNsDeviceStore(core: core, notifications: notifications)
        schema = SchemaStore(core: core)
        queryShapes = QueryShapeStore(core: core)
        records = StoredRecords(core: core, quota: quota, assets: assets, subscriptions: subscriptions,
                                notifications: notifications, queryShapes: queryShapes)
        sharing = ShareStore(core: core, records: records)
        zones = ZoneStore(core: core, records: records, assets: assets, notifications: notifications)
        consistency = ConsistencyCheck(core: core)
        // A bulk import that died left a type without its indexes: build them before anything is served.
        try records.buildDeferredIndexes()
        // Changes a write handed off before a stop (or a crash) are fanned out now.
        if notifications.hasHandedOffChanges() { notifications.fanOutDue() }
    }

    /// An environment in one SQLite file.
    convenience init(container: ContainerID, environment: ContainerEnvironment, file: URL, assetsDirectory: URL,
                     durability: Durability = .full,
                     quotaBytes: Int64? = nil, notifications: NotificationPolicy = NotificationPolicy(),
                     bell: NotificationBell = NotificationBell(), autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy()) throws {
        try self.init(container: container, environment: environment, backend: .sqlite(file: file,
                durability: durability), assetsDirectory: assetsDirectory,
                      quotaBytes: quotaBytes, notifications: notifications, bell: bell, autoIndexPolicy: autoIndexPolicy)
    }

    /// Closes the environment's database once the work inside it is done (see `GatedDatabase`).
    func close() {
        // The last minute's query shapes are written first, so `stratus schema check` after a server stopped sees them.
        queryShapes.recordQueryShapes()
        core.close()
    }

    /// Frees what every connection of this environment holds in its page cache (benchmarks give the next phase's
    /// side the whole cache budget this way).
    public func releaseMemory() { core.releaseMemory() }

    /// Copies the write-ahead log into the database file and empties it (what SQLite does by itself every 1,000
    /// pages; a benchmark does it before a figure so that one phase does not pay for the last one's writes).
    public func checkpoint() throws(StratusError) { try core.checkpoint() }

    /// SQLite's own consistency check of this environment's file: "ok" when intact.
    public func integrityCheck() throws(StratusError) -> String { try core.integrityCheck() }

    /// The environment's PostgreSQL schema (nil on SQLite), which names it in messages to other servers.
    public var postgresSchema: String? { core.postgresSchema }
}
