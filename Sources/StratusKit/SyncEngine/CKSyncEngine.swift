import Foundation
import Synchronization

/// Mirrors `CKSyncEngine` (iOS 17 / macOS 14): keeps a database and an app's local cache in step. The app tells it
/// what changed locally (`state.add(pending…)`) and hands over records when asked; the engine sends them in batches,
/// fetches what changed on the server (when the database subscription it keeps notifies, with `automaticallySync`),
/// and reports everything as events, one at a time. It applies CloudKit's recovery rules for the app: batches split
/// on `.limitExceeded`, waits of `retryAfterSeconds` (or backoff with jitter) on `.zoneBusy`,
/// `.requestRateLimited`, `.serviceUnavailable` and network failures, a fresh fetch on `.changeTokenExpired`, and one
/// operation in flight at a time.
public final class CKSyncEngine: @unchecked Sendable {
    /// Mirrors `CKSyncEngine.Configuration`.
    public struct Configuration: Sendable {
        /// Mirrors `CKSyncEngine.Configuration.database`.
        public var database: CKDatabase
        /// Mirrors `CKSyncEngine.Configuration.stateSerialization`.
        public var stateSerialization: State.Serialization?
        /// Mirrors `CKSyncEngine.Configuration.delegate`: held weakly, as CloudKit's is, so the app keeps its
        /// delegate alive.
        public weak var delegate: (any CKSyncEngineDelegate)?
        /// Mirrors `automaticallySync`: fetch when notified and send shortly after changes are added.
        public var automaticallySync = true
        /// Mirrors `subscriptionID`: the database subscription the engine keeps (a default per database otherwise).
        public var subscriptionID: CKSubscription.ID?

        /// Mirrors `CKSyncEngine.Configuration(database:stateSerialization:delegate:)`.
        public init(database: CKDatabase, stateSerialization: State.Serialization?,
                    delegate: any CKSyncEngineDelegate) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }
    }

    /// The most operations one request carries (the server's limit).
    static let maximumBatchSize = 400
    /// The longest wait between retries of a transient failure, and the first one.
    nonisolated(unsafe) static var maximumBackoff: Double = 5
    nonisolated(unsafe) static var firstBackoff: Double = 0.2

    /// Mirrors `CKSyncEngine.database`.
    public let database: CKDatabase
    /// Mirrors `CKSyncEngine.state`.
    public let state: State
    /// Held weakly, as CloudKit's engine holds it: an app's model usually owns its engine and is its delegate.
    weak var delegate: (any CKSyncEngineDelegate)?
    let automaticallySync: Bool
    let subscriptionID: CKSubscription.ID
    private let operations = AsyncGate()
    private let events = AsyncGate()
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []
    /// What is scheduled and not yet started (`schedule`).
    private var queued: Set<ScheduledWork> = []
    private var cancelled = false
    /// Learns who the engine syncs for, and delivers `.accountChange(.signIn)` to an engine started without saved
    /// state (CloudKit's engine does, and apps create their zones when they hear it); every sync waits for it, so
    /// the app has heard it before anything else.
    private var accountCheck: Task<Void, Never>?
    /// The user the engine syncs for, as last learned (nil: nobody is signed in, or not yet known).
    private var knownUser: CKRecord.ID?
    /// Its `CKAccountChanged` observer.
    private var accountObserver: (any NSObjectProtocol)?

    /// Mirrors `CKSyncEngine(_:)`.
    public init(_ configuration: Configuration) {
        database = configuration.database
        state = State(configuration.stateSerialization)
        delegate = configuration.delegate
        automaticallySync = configuration.automaticallySync
        subscriptionID = configuration.subscriptionID ?? "StratusKit.CKSyncEngine.\(configuration.database.databaseScope.pathName)"
        state.onChange = { [weak self] added in self?.stateChanged(added: added) }
        let services = database.services, fresh = configuration.stateSerialization == nil
        accountCheck = Task { [weak self] in
            guard let user = try? await CKContainer.userRecordID(services), let self else { return }
            self.lock.withLock { self.knownUser = user }
            if fresh { await self.emit(.accountChange(.init(changeType: .signIn(currentUser: user)))) }
        }
        accountObserver = NotificationCenter.default.addObserver(forName: .CKAccountChanged, object: nil,
                                                                 queue: nil) { [weak self] _ in
            Task { [weak self] in await self?.accountMayHaveChanged() }
        }
        if automaticallySync { start() }
    }

    /// After `CKAccountChanged`: asks who is signed in now and, if that is not who the engine synced for, resets its
    /// state (change tokens and pending changes: they were another account's) and tells the delegate
    /// `.signIn`, `.signOut` or `.switchAccounts`, as CloudKit's engine does. What to delete is the app's choice.
    func accountMayHaveChanged() async {
        await accountKnown()
        let current: CKRecord.ID?
        do {
            current = try await CKContainer.userRecordID(database.services)
        } catch let e as CKError where e.code == .notAuthenticated {
            current = nil
        } catch {
            return
        }
        let previous = lock.withLock { () -> CKRecord.ID? in
            defer { knownUser = current }
            return knownUser
        }
        let change: Event.AccountChange.ChangeType
        switch (previous, current) {
        case (nil, let now?): change = .signIn(currentUser: now)
        case (let before?, nil): change = .signOut(previousUser: before)
        case (let before?, let now?) where before != now:
            change = .switchAccounts(previousUser: before, currentUser: now)
        default: return
        }
        if previous != nil { state.reset() }
        await emit(.accountChange(.init(changeType: change)))
    }

    /// Waits until a fresh engine's account event was handled (see `accountCheck`).
    func accountKnown() async { await accountCheck?.value }

    deinit {
        for t in tasks { t.cancel() }
        if let accountObserver { NotificationCenter.default.removeObserver(accountObserver) }
    }

    // MARK: Explicit syncs

    /// Mirrors `fetchChanges(_:)`: database changes, then each changed zone's record changes, reported as events.
    public func fetchChanges(_ options: FetchChangesOptions = FetchChangesOptions()) async throws {
        await accountKnown()
        try await operations.run { try await performFetch(reason: .manual, options: options, persistent: false) }
    }

    /// Mirrors `sendChanges(_:)`: pending zone changes, then record changes in batches from the delegate.
    public func sendChanges(_ options: SendChangesOptions = SendChangesOptions()) async throws {
        await accountKnown()
        try await operations.run { try await performSend(reason: .manual, options: options, persistent: false) }
    }

    /// Mirrors `cancelOperations()`: stops automatic syncing and what is in flight.
    public func cancelOperations() async {
        let running = lock.withLock { () -> [Task<Void, Never>] in
            cancelled = true
            return tasks
        }
        for t in running { t.cancel() }
    }

    // MARK: Automatic syncing

    private func start() {
        let database = self.database, subscriptionID = self.subscriptionID
        let t = Task { [weak self] in
            await self?.accountKnown()
            // The database subscription the engine listens on (saving an existing one changes nothing).
            _ = try? await database.save(CKDatabaseSubscription(subscriptionID: subscriptionID))
            guard let self else { return }
            self.scheduleFetch()
            if !self.state.pendingRecordZoneChanges.isEmpty || !self.state.pendingDatabaseChanges.isEmpty { self.scheduleSend() }
        }
        // The listening task holds the engine only weakly: an engine the app lets go stops (its deinit cancels
        // the task), as CloudKit's does, instead of listening and fetching for ever.
        let listening = Task { [weak self] in
            await Self.listen(to: database, subscriptionID: subscriptionID) { [weak self] in
                guard let self else { return false }
                self.scheduleFetch()
                return true
            }
        }
        lock.withLock { tasks += [t, listening] }
    }

    /// Notifications of the engine's database subscription call `fetch` (as does each (re)connection, since the
    /// stream starts at "now" and a fetch catches up); a lost stream is listened to again. Ends when `fetch`
    /// answers false (the engine is gone) or the task is cancelled.
    private static func listen(to database: CKDatabase, subscriptionID: CKSubscription.ID,
                               fetch: @escaping @Sendable () -> Bool) async {
        while !Task.isCancelled {
            do {
                let gone = Mutex(false)
                let stream = CKNotificationStream(services: database.services,
                                                  onConnect: { if !fetch() { gone.withLock { $0 = true } } })
                for try await n in stream {
                    if gone.withLock({ $0 }) { return }
                    if n.subscriptionID == subscriptionID || (n as? CKDatabaseNotification)?.databaseScope == database.databaseScope {
                        guard fetch() else { return }
                    }
                }
                if gone.withLock({ $0 }) { return }
            } catch {}
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func stateChanged(added: Bool) {
        let t = Task { [weak self] in
            guard let self else { return }
            // The state as it is when the event is handed over, not as it was when it changed: these tasks may
            // reach the gate out of order, and an earlier change's state delivered after a later one's left the
            // app persisting the older state last (offline edits lost from it).
            await self.events.run { await self.delegate?.handleEvent(.stateUpdate(.init(stateSerialization: self.state.serialization)), syncEngine: self) }
        }
        lock.withLock { tasks.removeAll { $0.isCancelled }; tasks.append(t) }
        if added && automaticallySync { scheduleSend() }
    }

    /// A fetch soon, unless one is already waiting to start.
    func scheduleFetch() {
        schedule(.fetch) { try? await $0.performFetch(reason: .scheduled, options: FetchChangesOptions(),
                                                      persistent: true) }
    }

    /// A send shortly (changes added together go together), unless one is already waiting to start.
    func scheduleSend() {
        schedule(.send, after: .milliseconds(50)) { try? await $0.performSend(reason: .scheduled,
                options: SendChangesOptions(), persistent: true) }
    }

    /// Work the engine starts by itself, at most one of each kind waiting at a time.
    enum ScheduledWork { case fetch, send }

    private func schedule(_ kind: ScheduledWork, after delay: Duration? = nil,
                          _ work: @escaping @Sendable (CKSyncEngine) async -> Void) {
        guard lock.withLock({ () -> Bool in
            if queued.contains(kind) || cancelled { return false }
            queued.insert(kind)
            return true
        }) else { return }
        let t = Task { [weak self] in
            if let delay { try? await Task.sleep(for: delay) }
            guard let self else { return }
            await self.accountKnown()
            await self.operations.run {
                self.lock.withLock { _ = self.queued.remove(kind) }
                await work(self)
            }
        }
        lock.withLock { tasks.append(t) }
    }

    /// Hands an event to the delegate; events never overlap.
    func emit(_ event: Event) async {
        await events.run { await delegate?.handleEvent(event, syncEngine: self) }
    }

    // MARK: Retries

    static func isTransient(_ code: CKError.Code) -> Bool {
        [.zoneBusy, .requestRateLimited, .serviceUnavailable, .networkFailure, .networkUnavailable,
         .serverResponseLost].contains(code)
    }

    /// Runs `body`, waiting out transient failures: the error's `retryAfterSeconds`, else exponential backoff with
    /// jitter. `persistent` (automatic syncs) keeps trying until the server answers; an explicit call gives up after
    /// a few attempts and throws.
    func withRetry<T>(persistent: Bool, _ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch let e as CKError where Self.isTransient(e.code) && (persistent || attempt < 4) {
                try Task.checkCancellation()
                try await Task.sleep(for: .seconds(Self.delay(e, attempt: attempt)))
                attempt += 1
            }
        }
    }

    static func delay(_ e: CKError?, attempt: Int) -> Double {
        if let wait = e?.retryAfterSeconds { return wait }
        let base = min(maximumBackoff, firstBackoff * pow(2, Double(attempt)))
        return base * Double.random(in: 0.5...1.0)
    }
}

extension NSLock {
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
