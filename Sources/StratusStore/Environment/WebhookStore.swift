import Foundation

import StratusModel
import Synchronization

/// Webhooks of a container environment and the queue of their deliveries.
public final class WebhookStore: EnvironmentPart {
    let core: EnvironmentDatabase
    /// The enabled webhooks, as read at most a few seconds ago (see `liveWebhooks`).
    let webhookCache = Mutex<(ContinuousClock.Instant, [Webhook])?>(nil)
    /// Whether any webhook exists, and when that was read (see `hasWebhooks`).
    let webhookPresence = Mutex<(at: ContinuousClock.Instant, any: Bool)?>(nil)

    init(core: EnvironmentDatabase) {
        self.core = core
    }

    /// Registers a webhook; returns it with its signing secret (64 hex), shown once.
    public func addWebhook(url: String, recordTypes: [String]) throws(StratusError) -> (Webhook, secret: String) {
        try Webhook.validate(url: url)
        for t in recordTypes { try Names.validate(recordType: t) }
        let secret = Secrets.hex(Secrets.randomBytes(32))
        let now = WallClock.nowMillis()
        let types = String(decoding: (try? JSONEncoder().encode(recordTypes)) ?? Data("[]".utf8), as: UTF8.self)
        let id: Int64 = try write { s, _ in
            try WebhookRows.insert(url: url, recordTypes: types, secret: secret, at: now, s)
        }
        webhooksChanged()
        return (Webhook(id: id, url: url, recordTypes: recordTypes, enabled: true, failures: 0, lastStatus: nil,
                        lastDeliveryAt: nil, createdAt: now), secret)
    }

    public func all() throws(StratusError) -> [Webhook] {
        try read { s, _ in try WebhookRows.all(s) }
    }

    public func removeWebhook(id: Int64) throws(StratusError) {
        try write { s, _ in
            guard try WebhookRows.delete(id: id, s) else { throw StratusError(.notFound, "no webhook #\(id)") }
        }
        webhooksChanged()
    }

    public func setWebhookEnabled(id: Int64, _ enabled: Bool) throws(StratusError) {
        try write { s, _ in
            guard try WebhookRows.setEnabled(id: id, enabled, s) else {
                throw StratusError(.notFound, "no webhook #\(id)")
            }
        }
        webhooksChanged()
    }

    /// Enabled webhooks, cached for a second so a `stratus webhook` change made beside a running server applies
    /// within a second, without a query on every write.
    func liveWebhooks(_ s: any SQLSession) throws -> [Webhook] {
        let now = ContinuousClock.now
        if let (at, hooks) = webhookCache.withLock({ $0 }), now - at < .seconds(1) { return hooks }
        let hooks = try WebhookRows.all(enabledOnly: true, s)
        webhookCache.withLock { $0 = (now, hooks) }
        return hooks
    }

    func webhooksChanged() {
        dropWebhookCaches()
        if let schema = postgresSchema { peers?.publish("webhooks \(schema)") }
    }

    /// Forgets the cached webhooks on this server only (another server changed them).
    func dropWebhookCaches() {
        webhookCache.withLock { $0 = nil }
        webhookPresence.withLock { $0 = nil }
    }

    /// Whether this environment has any webhook, from memory when checked in the last 5 seconds (nil: ask
    /// `hasWebhooks`).
    public var knownWebhookPresence: Bool? {
        webhookPresence.withLock { p in p.flatMap { ContinuousClock.now - $0.at < .seconds(5) ? $0.any : nil } }
    }

    public func hasWebhooks() throws(StratusError) -> Bool {
        if let known = knownWebhookPresence { return known }
        let any = try read { s, _ in try WebhookRows.any(s) }
        webhookPresence.withLock { $0 = (ContinuousClock.now, any) }
        return any
    }

    // MARK: deliveries

    public struct WebhookDelivery: Sendable {
        public var id, webhookID: Int64
        public var url, secret, notificationID, payload: String
        public var attempts: Int
        public var createdAt: Int64
    }

    /// Deliveries due now, oldest first, for enabled webhooks.
    /// On PostgreSQL, where several servers deliver, the deliveries returned are claimed for `webhookLease`: their
    /// next attempt moves past it, so no other server takes them meanwhile (rows another server is claiming at
    /// that moment are skipped, not waited for). An attempt's outcome then sets the next attempt as ever; a server
    /// that dies holding a claim only delays those deliveries by the lease. One SQLite process needs no claim.
    public func dueWebhookDeliveries(limit: Int = 256) throws(StratusError) -> [WebhookDelivery] {
        let now = WallClock.nowMillis()
        if sqlite == nil {
            return try write { s, _ in try WebhookDeliveries.claimDue(now: now, until: now + Self.webhookLease,
                                                                      limit: limit, s) }
        }
        return try read { s, _ in try WebhookDeliveries.due(now: now, limit: limit, s) }
    }

    /// How long a server's claim on a webhook delivery lasts (milliseconds; see `dueWebhookDeliveries`).
    static let webhookLease: Int64 = 60_000

    /// Records attempts' outcomes, in one transaction however many there are. A failure is retried with
    /// exponential backoff (1 s, 2 s, 4 s … capped at an hour) for 24 hours; then the delivery fails for good, and a
    /// webhook with 5 such failures in a row is disabled.
    public func recordWebhookAttempts(_ outcomes: [(delivery: WebhookDelivery, status: String,
                                                    succeeded: Bool)]) throws(StratusError) {
        guard !outcomes.isEmpty else { return }
        let now = WallClock.nowMillis()
        try write { s, _ in
            for (d, status, succeeded) in outcomes {
                if succeeded {
                    try WebhookDeliveries.delivered(id: d.id, s)
                    try WebhookRows.delivered(id: d.webhookID, status: status, at: now, s)
                    continue
                }
                let attempts = d.attempts + 1
                let delay = min(Int64(3_600_000), Int64(1000) << Int64(min(attempts - 1, 22)))
                if now + delay - d.createdAt > Self.webhookRetryWindow {
                    try WebhookDeliveries.failed(id: d.id, attempts: attempts, error: status, s)
                    try WebhookRows.failed(id: d.webhookID, status: status, s)
                } else {
                    try WebhookDeliveries.retry(id: d.id, attempts: attempts, at: now + delay, error: status, s)
                    try WebhookRows.attempted(id: d.webhookID, status: status, s)
                }
            }
        }
        webhooksChanged()
    }


    public static let webhookRetryWindow: Int64 = 24 * 3600 * 1000

    /// Every delivery of one notification to a webhook, newest first (for the console and tests).
    public func webhookDeliveries(webhookID: Int64) throws(StratusError) -> [(nid: String, state: String, attempts: Int,
            lastError: String?)] {
        try read { s, _ in try WebhookDeliveries.of(webhook: webhookID, s) }
    }

    /// The newest webhook deliveries, newest first.
    public func recentWebhookDeliveries(limit: Int = 200) throws(StratusError) -> [WebhookDeliveryLogEntry] {
        try read { s, _ in try WebhookDeliveries.recent(limit: limit, s) }
    }
}
