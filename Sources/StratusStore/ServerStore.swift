import Crypto
import Foundation
import StratusModel
import StratusPostgres
import Synchronization

/// The whole store: a small control database (containers, administrators, accounts, credentials, faults) and one
/// database per container environment — under one data directory on SQLite (`stratus.sqlite`, and
/// `containers/<id>/development.sqlite`, `…/production.sqlite`, so environments are isolated and back up as files),
/// or schemas of one PostgreSQL database.
///
/// It is a small façade: each kind of data has its own store (`admins`, `accounts`, `credentials`, `faults`,
/// `lifecycle`), and `environment(_:_:)` opens a container environment's `EnvironmentStore`.
public final class ServerStore: Sendable {
    /// Where a SQLite store keeps its files; nil for a store on PostgreSQL, which keeps nothing on local disk.
    public let dataDirectory: URL?
    /// The PostgreSQL pool of a store on PostgreSQL (`--database-url`), shared by everything it opens.
    let postgres: PostgresPool?
    /// How every database file of this store commits (see `Durability`).
    public let durability: Durability
    /// Each container environment's storage quota in bytes (records and assets); nil for none.
    public let quotaBytes: Int64?
    /// What one user's data may take of it (their private databases, the public records they created, their
    /// subscriptions): by default a tenth of `quotaBytes`, so that no one user can fill an environment.
    public let userQuotaBytes: Int64?
    /// Wakes notification listeners and the webhook deliverer when a commit concerns them.
    public let bell = NotificationBell()
    /// The control database: containers, credentials, keys, admins, faults.
    let control: any SQLDatabase
    /// Retention, subscription caps and the notification log's budget of every environment.
    public let notificationPolicy: NotificationPolicy
    /// When environments build composite indexes for the query shapes they see.
    public let autoIndexPolicy: AutoIndexPolicy
    /// Files and directories of the data directory that others could read when it opened, and that it made private.
    public let loosened: [String]
    /// The open container environments.
    let registry: EnvironmentRegistry
    /// Console administrators, their sessions, device cookies and the audit log.
    public let admins: AdminStore
    /// Each container's users and their web auth tokens.
    public let accounts: AccountStore
    /// API tokens, server-to-server keys and APNs keys.
    public let credentials: CredentialStore
    /// Injected faults.
    public let faults: FaultStore
    /// Each container's passkeys and the passkey ceremonies under way.
    public var passkeys: PasskeyStore { PasskeyStore(control: control) }
    /// OpenID providers each container's users sign in with, and which user each provider's subject is.
    public var identities: IdentityStore { IdentityStore(control: control, registry: registry) }
    /// Deploys, schema imports, resets and snapshots of a container's environments.
    public var lifecycle: ContainerLifecycle { ContainerLifecycle(registry: registry) }
    /// On PostgreSQL: what one server changes, the others stop caching (see `CacheInvalidation`).
    var invalidation: CacheInvalidation { registry.invalidation }

    public init(dataDirectory: URL, durability: Durability = .full, quotaBytes: Int64? = nil,
                userQuotaBytes: Int64? = nil,
                notifications: NotificationPolicy = NotificationPolicy(),
                autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy()) throws(StratusError) {
        CacheBudget.applyDefaultOnce()
        self.userQuotaBytes = userQuotaBytes ?? quotaBytes.map { $0 / 10 }
        self.autoIndexPolicy = autoIndexPolicy
        self.dataDirectory = dataDirectory
        self.notificationPolicy = notifications
        self.quotaBytes = quotaBytes
        self.durability = durability
        postgres = nil
        try guarded { try PrivateFiles.directory(dataDirectory) }
        loosened = PrivateFiles.secure(dataDirectory)
        let control: any SQLDatabase = try guarded {
            try SQLiteDatabase.controlFile(dataDirectory.appendingPathComponent("stratus.sqlite"),
                                           durability: durability, migrations: ServerStore.controlMigrations)
        }
        self.control = control
        registry = EnvironmentRegistry(dataDirectory: dataDirectory, postgres: nil, control: control,
                                       durability: durability, quotaBytes: quotaBytes,
                                       userQuotaBytes: self.userQuotaBytes, bell: bell, notificationPolicy: notifications, autoIndexPolicy: autoIndexPolicy)
        (admins, accounts, credentials, faults) = Self.parts(control, registry)
    }

    /// A store on PostgreSQL (`postgres://…`): the control data in the schema `stratus`. Several servers may
    /// share one database; migrations run once, under an advisory lock.
    public init(databaseURL: String, quotaBytes: Int64? = nil, userQuotaBytes: Int64? = nil,
                notifications: NotificationPolicy = NotificationPolicy(),
                autoIndexPolicy: AutoIndexPolicy = AutoIndexPolicy(), poolSize: Int = 16) throws(StratusError) {
        self.userQuotaBytes = userQuotaBytes ?? quotaBytes.map { $0 / 10 }
        self.autoIndexPolicy = autoIndexPolicy
        self.loosened = []
        self.dataDirectory = nil
        self.notificationPolicy = notifications
        self.quotaBytes = quotaBytes
        // PostgreSQL's own durability (synchronous_commit, replication) decides what a commit means there.
        self.durability = .full
        let pool = PostgresPool(url: databaseURL, capacity: poolSize)
        let db = PostgresDatabase(pool: pool, schema: Self.controlSchema)
        try guarded { try ServerStore.controlMigrations.migrate(db) }
        postgres = pool
        control = db
        registry = EnvironmentRegistry(dataDirectory: nil, postgres: pool, control: db, durability: .full,
                                       quotaBytes: quotaBytes,
                                       userQuotaBytes: self.userQuotaBytes, bell: bell, notificationPolicy: notifications, autoIndexPolicy: autoIndexPolicy)
        (admins, accounts, credentials, faults) = Self.parts(db, registry)
        registry.invalidation.start(pool: pool) { [weak self] what in self?.heard(what) }
    }

    private static func parts(_ control: any SQLDatabase, _ registry: EnvironmentRegistry) -> (AdminStore, AccountStore,
            CredentialStore, FaultStore) {
        (AdminStore(control: control), AccountStore(control: control, registry: registry),
         CredentialStore(control: control, registry: registry),
         FaultStore(control: control, registry: registry))
    }

    /// What another server (or this one) published on the invalidation channel.
    private func heard(_ what: String) {
        if let keys = CacheInvalidation.bellKeys(what) { bell.ring(keys); return }
        if what == "credentials" || what == "all" { credentials.apiTokenCache.removeAll(); accounts.webTokenCache.removeAll() }
        if what == "faults" || what == "all" { faults.dropCache() }
        let parts = what.split(separator: " ", maxSplits: 1).map(String.init)
        for env in openEnvironments() where what == "all" || (parts.count == 2 && env.postgresSchema == parts[1]) {
            if what == "all" || parts[0] == "subscriptions" { env.subscriptions.dropSubscriptionIndex() }
            if what == "all" || parts[0] == "webhooks" { env.webhooks.dropWebhookCaches() }
        }
    }

    /// The control database's schema steps, in the order they were introduced.
    /// The PostgreSQL schema of the control data (containers, users, credentials, admins).
    static let controlSchema = "stratus"

    static let controlMigrations: SQLMigrations = {
        var m = SQLMigrations()
        ContainerRows.registerMigrations(&m)
        CredentialStore.registerMigrations(&m)
        ServerKeyRows.registerMigrations(&m)
        AdminStore.registerMigrations(&m)
        FaultRows.registerMigrations(&m)
        APNsCredentialRows.registerMigrations(&m)
        DeviceCookies.registerMigrations(&m)
        UserIdentities.registerMigrations(&m)
        PendingLinks.registerMigrations(&m)
        IdentityProviderRows.registerMigrations(&m)
        AdminStore.registerLaterMigrations(&m)
        return m
    }()

    // MARK: containers

    public func createContainer(_ id: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try ContainerRows.insert(id, at: WallClock.nowMillis(), s) else {
                    throw StratusError(.exists, "container \(id) already exists")
                }
            }
        }
        for env in ContainerEnvironment.allCases { _ = try environment(id, env) }
    }

    public func containers() throws(StratusError) -> [ContainerInfo] {
        try guarded {
            try control.read { s in try ContainerRows.all(s) }
        }
    }

    public func containerExists(_ id: ContainerID) throws(StratusError) -> Bool { try registry.containerExists(id) }

    /// Deletes a container with both environments, their records, schema and assets.
    public func deleteContainer(_ id: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try ContainerRows.delete(id, s) else { throw StratusError(.notFound,
                        "container \(id) does not exist") }
            }
        }
        registry.close(id)
        credentials.credentialsChanged()
        accounts.sessionsChanged()
        // On PostgreSQL the environments are schemas: they go in one statement each, records, types and all.
        if let postgres {
            try guarded {
                try postgres.withConnection { c in
                    for env in ContainerEnvironment.allCases { try c.executeScript("DROP SCHEMA IF EXISTS \(PostgresIdentifier.quoted(EnvironmentRegistry.schemaName(id, env))) CASCADE") }
                }
            }
        }
        if dataDirectory != nil { try? FileManager.default.removeItem(at: registry.directory(of: id)) }
    }

    /// The container environments this process has opened (the ones its writes can have queued work in).
    public func openEnvironments() -> [EnvironmentStore] { registry.openEnvironments() }

    /// Closes the environments unused for `span` that nothing holds (see `EnvironmentRegistry.releaseIdle`).
    @discardableResult
    public func releaseIdleEnvironments(after span: Duration) -> Int { registry.releaseIdle(after: span) }

    /// Closes the open environments; the next use opens them afresh (their catalog, secret and caches read anew,
    /// as after `stratus migrate` wrote them underneath).
    func forgetEnvironments() { registry.closeAll() }

    /// Closes every database file this store opened (a server's shutdown): what is still referenced elsewhere
    /// answers errors from now on instead of holding files open until the process ends.
    public func close() {
        registry.fanOut.stop()
        registry.closeAll()
        invalidation.stop()
        control.close()
        postgres?.close()
    }

    /// The store of one container environment, opened once and shared (see `EnvironmentRegistry`).
    public func environment(_ id: ContainerID, _ env: ContainerEnvironment) throws(StratusError) -> EnvironmentStore {
        try registry.environment(id, env)
    }

    /// The container environment that holds a share, found by its short GUID (nil when none does). Short GUIDs are
    /// random and unique, so the first hit is the only one.
    public func locateShare(_ shortGUID: String) -> EnvironmentStore? {
        for c in (try? containers()) ?? [] {
            for e in ContainerEnvironment.allCases {
                if let env = try? environment(c.id, e), env.sharing.holdsShare(shortGUID) { return env }
            }
        }
        return nil
    }

    /// The PostgreSQL schema of a container environment (see `EnvironmentRegistry.schemaName`).
    static func schemaName(_ id: ContainerID,
                           _ env: ContainerEnvironment) -> String { EnvironmentRegistry.schemaName(id, env) }

    /// What faults, snapshots and restores of Production answer without the operator's explicit opt-in.
    public static func productionAdminRefusal(_ what: String) -> StratusError {
        StratusError(.accessDenied,
                     "\(what) on Production reach real users' data: start the server with --allow-production-admin (on the command line, add --allow-production-admin) to allow them")
    }
}

extension Optional where Wrapped == Bool {
    var isTrue: Bool { self ?? false }
}
