import Foundation
import Logging
import StratusHTTP
import StratusModel
import StratusPush
import StratusStore
import Synchronization

/// Pushes notifications to the Apple devices users registered (`tokens/register` with a real device token), for
/// every container environment with an APNs key (`stratus apns set`). Each device reads its user's notification
/// log from its own position, as a courier token does, so a write pays nothing for push and a server that was
/// down pushes what it missed. A loop apart from every request: a slow APNs holds up only itself.
///
/// What APNs answers decides what happens next: 200 moves the device on; 410 (or BadDeviceToken) forgets the
/// device; 429, 5xx or no answer retries that device's notification with exponential backoff and jitter, up to
/// `maximumAttempts`; an expired provider token is renewed and the push sent again at once; anything else is
/// recorded as failed and the device moves on. Every outcome is kept for the console's Notifications page.
final class APNsDeliverer: Sendable {
    let store: ServerStore
    let logger: Logger
    let client: APNsClient
    private let loop = BackgroundWork("APNs deliverer")
    /// Provider tokens by container environment, remade when the credentials change.
    private let signers = Mutex<[String: (credentials: APNsCredentials, token: APNsProviderToken)]>([:])
    /// Per device: how far its log was read with nothing left to push (kept in memory: no write per pass), and
    /// the retry under way.
    private let progress = Mutex<[String: Progress]>([:])
    /// Pushes since the start, by container environment and outcome (the server's `/-/metrics`).
    private let counts = Mutex<[String: Int]>([:])

    static let maximumAttempts = 8
    /// At most this many of one device's notifications per pass, so one busy device does not hold up the others.
    static let pageSize = 50
    /// Devices served at once in a pass.
    static let devicesAtOnce = 4

    struct Progress {
        var checkedThrough: Int64 = 0
        var attempts = 0
        var retryAt: ContinuousClock.Instant?
    }

    init(store: ServerStore, logger: Logger, client: APNsClient) {
        self.store = store
        self.logger = logger
        self.client = client
    }

    func start() {
        let deliverer = self
        loop.start { await deliverer.run() }
    }

    func stop() async { await loop.stop() }

    /// Pushes by outcome, as `container\u{0}environment\u{0}state` → count.
    func pushCounts() -> [String: Int] { counts.withLock { $0 } }

    private func run() async {
        let store = self.store
        while !Task.isCancelled && !store.bell.isClosed {
            let rung = store.bell.rings(NotificationBell.any)
            let everyKey = (try? await BlockingWork.shared.run { try store.credentials.allAPNsCredentials() }) ?? []
            var soonest: Duration = .seconds(1)
            for credentials in everyKey where !Task.isCancelled {
                if let retry = await pass(credentials) { soonest = min(soonest, retry) }
            }
            await store.bell.wait(NotificationBell.any, since: rung, timeout: max(soonest, .milliseconds(20)))
        }
    }

    private func signer(for c: APNsCredentials) -> APNsProviderToken? {
        let key = "\(c.container.rawValue)\u{0}\(c.environment.rawValue)"
        if let known = signers.withLock({ $0[key] }), known.credentials == c { return known.token }
        guard let made = try? APNsProviderToken(privateKeyPEM: c.privateKeyPEM, keyID: c.keyID, teamID: c.teamID) else {
            logger.error("the APNs key cannot sign", metadata: ["container": "\(c.container)", "environment": "\(c.environment.rawValue)"])
            return nil
        }
        signers.withLock { $0[key] = (c, made) }
        return made
    }

    /// One environment's devices with something to push; returns how soon a retry is due, if one is.
    private func pass(_ credentials: APNsCredentials) async -> Duration? {
        let store = self.store
        guard let signer = signer(for: credentials) else { return nil }
        let work: (EnvironmentStore, [APNsDevice])? = try? await BlockingWork.shared.run {
            let env = try store.environment(credentials.container, credentials.environment)
            guard try env.apns.hasAPNsDevices() else { return nil }
            let devices = try env.apns.apnsDevices()
            // Each user's notifications have their own order: a device is due when its user's newest is past it.
            let newest = try env.notifications.lastNotificationIDs(for: Array(Set(devices.map(\.userRecordName))))
            let now = ContinuousClock.now
            let due = self.progress.withLock { p in
                devices.filter { d in
                    let seen = p[d.token]
                    if let at = seen?.retryAt, at > now { return false }
                    return max(d.deliveredThrough, seen?.checkedThrough ?? 0) < newest[d.userRecordName, default: 0]
                }
            }
            let claimed = Set(try env.apns.claimAPNsDevices(due.map(\.token)))
            return (env, due.filter { claimed.contains($0.token) })
        }
        guard let (env, devices) = work else { return nil }
        guard !devices.isEmpty else { return retryDue() }
        // A few devices at a time: each holds a page of its log while APNs answers (or does not), and a user may hold
        // 32 devices.
        let outcomes = await withTaskGroup(of: DeviceOutcome.self) { group in
            var all: [DeviceOutcome] = []
            var pending = devices[...]
            for _ in 0..<Self.devicesAtOnce { if let d = pending.popFirst() { group.addTask { await self.serve(d, env, credentials, signer) } } }
            for await o in group {
                all.append(o)
                if let d = pending.popFirst() { group.addTask { await self.serve(d, env, credentials, signer) } }
            }
            return all
        }
        var positions: [String: Int64] = [:]
        var deliveries: [APNsDelivery] = []
        var dropped: [String] = []
        for o in outcomes {
            deliveries += o.deliveries
            if o.drop { dropped.append(o.token) } else if let through = o.persistThrough { positions[o.token] = through }
        }
        do {
            try await BlockingWork.shared.run { [deliveries, positions, dropped] in
                try env.apns.recordAPNsDeliveries(deliveries)
                try env.apns.finishAPNsDevices(devices.map(\.token), delivered: positions)
                for token in dropped { try env.apns.removeAPNsDevice(token: token) }
            }
        } catch {
            logger.error("could not record APNs deliveries", metadata: ["error": "\(error)"])
        }
        counts.withLock { c in
            for d in deliveries { c["\(credentials.container.rawValue)\u{0}\(credentials.environment.rawValue)\u{0}\(d.state.rawValue)", default: 0] += 1 }
        }
        progress.withLock { p in for t in dropped { p[t] = nil } }
        return retryDue()
    }

    /// The soonest retry due, from now.
    private func retryDue() -> Duration? {
        let now = ContinuousClock.now
        return progress.withLock { p in p.values.compactMap(\.retryAt).min() }.map { max($0 - now, .zero) }
    }

    struct DeviceOutcome: Sendable {
        var token: String
        var deliveries: [APNsDelivery] = []
        /// The log position to save (something was pushed or given up on), nil when nothing moved.
        var persistThrough: Int64?
        var drop = false
    }

    /// Pushes a device's next notifications in order, stopping at one that must be retried.
    private func serve(_ device: APNsDevice, _ env: EnvironmentStore, _ credentials: APNsCredentials, _ signer: APNsProviderToken) async -> DeviceOutcome {
        var outcome = DeviceOutcome(token: device.token)
        var state = progress.withLock { $0[device.token] } ?? Progress()
        var through = max(device.deliveredThrough, state.checkedThrough)
        defer {
            state.checkedThrough = through
            progress.withLock { $0[device.token] = state }
        }
        let start = through
        guard let page = try? await BlockingWork.shared.run({
            try env.notifications.notificationPage(for: device.userRecordName, after: start, limit: Self.pageSize, skippingExpired: true)
        }) else { return outcome }
        var finished = true
        for n in page.notifications {
            var push = APNsPush(cloudKitPayload: n.payload, deviceToken: device.token, topic: credentials.topic)
            // A silent push only says "fetch": a newer one of the same subscription can stand for an older one.
            if push.pushType == .background { push.collapseID = String(n.subscriptionID.utf8.prefix(64)) }
            let production = device.apnsEnvironment == .production
            var result = await client.send(push, production: production, providerToken: signer.token())
            if result.action == .renewProviderToken {
                signer.renew()
                result = await client.send(push, production: production, providerToken: signer.token())
            }
            state.attempts += 1
            let now = WallClock.nowMillis()
            func record(_ s: APNsDelivery.State) {
                outcome.deliveries.append(APNsDelivery(id: 0, token: device.token, userRecordName: device.userRecordName, notificationID: n.notificationID,
                                                       state: s, status: result.status, reason: result.reason, apnsID: result.apnsID, attempts: state.attempts, at: now))
            }
            switch result.action {
            case .delivered:
                record(.sent)
            case .dropDevice:
                record(.unregistered)
                outcome.drop = true
                logger.info("APNs token no longer valid: device removed", metadata: ["status": "\(result.status)", "reason": "\(result.reason ?? "")"])
                state = Progress()
                return outcome
            case .retry where state.attempts < Self.maximumAttempts:
                record(.retrying)
                // 1 s, 2 s, 4 s … at most a minute, each with up to a fifth more at random so devices do not retry in step.
                let base = min(60_000, 1000 << min(state.attempts - 1, 6))
                state.retryAt = .now + .milliseconds(base + Int.random(in: 0...(base / 5)))
                finished = false
            case .retry, .giveUp, .renewProviderToken:
                record(.failed)
                logger.warning("APNs push failed", metadata: ["status": "\(result.status)", "reason": "\(result.reason ?? "")", "attempts": "\(state.attempts)"])
            }
            guard finished else { break }
            state.attempts = 0
            state.retryAt = nil
            through = n.id
            outcome.persistThrough = n.id
        }
        if finished && page.notifications.count < Self.pageSize { through = max(through, page.through) }
        return outcome
    }
}
