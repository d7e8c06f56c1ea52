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
            try s.int64("INSERT INTO webhooks(url, record_types, secret, created_at) VALUES (?, ?, ?, ?) RETURNING id", [url, types, secret, now]) ?? 0
        }
        webhooksChanged()
        return (Webhook(id: id, url: url, recordTypes: recordTypes, enabled: true, failures: 0, lastStatus: nil, lastDeliveryAt: nil, createdAt: now), secret)
    }

    public func all() throws(StratusError) -> [Webhook] {
        try read { s, _ in try s.all("SELECT \(Self.webhookColumns) FROM webhooks ORDER BY id", [], Self.webhook) }
    }

    /// The columns `webhook(_:)` reads, in its order.
    static let webhookColumns = "id, url, record_types, enabled, failures, last_status, last_delivery_at, created_at"

    static func webhook(_ r: any SQLRow) -> Webhook {
        let types = (try? JSONDecoder().decode([String].self, from: Data((r.string(2) ?? "[]").utf8))) ?? []
        return Webhook(id: r.int64(0) ?? 0, url: r.string(1) ?? "", recordTypes: types, enabled: r.bool(3) ?? false, failures: Int(r.int64(4) ?? 0),
                       lastStatus: r.string(5), lastDeliveryAt: r.int64(6), createdAt: r.int64(7) ?? 0)
    }

    public func removeWebhook(id: Int64) throws(StratusError) {
        try write { s, _ in
            guard try s.execute("DELETE FROM webhooks WHERE id = ?", id) == 1 else { throw StratusError(.notFound, "no webhook #\(id)") }
            try s.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ? AND state = 'pending'", id)
        }
        webhooksChanged()
    }

    public func setWebhookEnabled(id: Int64, _ enabled: Bool) throws(StratusError) {
        try write { s, _ in
            guard try s.execute("UPDATE webhooks SET enabled = ?, failures = CASE WHEN ? = 1 THEN 0 ELSE failures END WHERE id = ?", enabled, enabled, id) == 1 else {
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
        let hooks = try s.all("SELECT \(Self.webhookColumns) FROM webhooks WHERE enabled = 1", [], Self.webhook)
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

    /// Whether this environment has any webhook, from memory when checked in the last 5 seconds (nil: ask `hasWebhooks`).
    public var knownWebhookPresence: Bool? {
        webhookPresence.withLock { p in p.flatMap { ContinuousClock.now - $0.at < .seconds(5) ? $0.any : nil } }
    }

    public func hasWebhooks() throws(StratusError) -> Bool {
        if let known = knownWebhookPresence { return known }
        let any = try read { s, _ in try s.exists("SELECT 1 FROM webhooks LIMIT 1") }
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
        let delivery = { (r: any SQLRow) in
            WebhookDelivery(id: r.int64(0) ?? 0, webhookID: r.int64(1) ?? 0, url: r.string(2) ?? "", secret: r.string(3) ?? "", notificationID: r.string(4) ?? "",
                            payload: r.string(5) ?? "", attempts: Int(r.int64(6) ?? 0), createdAt: r.int64(7) ?? 0)
        }
        let now = WallClock.nowMillis()
        if sqlite == nil {
            return try write { s, _ in
                try s.all("""
                    UPDATE webhook_deliveries d SET next_attempt_at = ? FROM webhooks w
                    WHERE w.id = d.webhook_id AND d.id IN (
                        SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w2 ON w2.id = d2.webhook_id
                        WHERE d2.state = 'pending' AND d2.next_attempt_at <= ? AND w2.enabled = 1
                        ORDER BY d2.next_attempt_at, d2.id LIMIT ? FOR UPDATE OF d2 SKIP LOCKED)
                    RETURNING d.id, d.webhook_id, w.url, w.secret, d.nid, d.payload, d.attempts, d.created_at
                    """, [now + Self.webhookLease, now, Int64(limit)], delivery)
            }
        }
        return try read { s, _ in
            try s.all("""
                SELECT d.id, d.webhook_id, w.url, w.secret, d.nid, d.payload, d.attempts, d.created_at FROM webhook_deliveries d
                JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND w.enabled = 1 ORDER BY d.next_attempt_at, d.id LIMIT ?
                """, [now, limit], delivery)
        }
    }

    /// How long a server's claim on a webhook delivery lasts (milliseconds; see `dueWebhookDeliveries`).
    static let webhookLease: Int64 = 60_000

    /// Records attempts' outcomes, in one transaction however many there are. A failure is retried with
    /// exponential backoff (1 s, 2 s, 4 s … capped at an hour) for 24 hours; then the delivery fails for good, and a
    /// webhook with 5 such failures in a row is disabled.
    public func recordWebhookAttempts(_ outcomes: [(delivery: WebhookDelivery, status: String, succeeded: Bool)]) throws(StratusError) {
        guard !outcomes.isEmpty else { return }
        let now = WallClock.nowMillis()
        try write { s, _ in
            for (d, status, succeeded) in outcomes {
                if succeeded {
                    try s.execute("UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, last_error = NULL WHERE id = ?", d.id)
                    try s.execute("UPDATE webhooks SET failures = 0, last_status = ?, last_delivery_at = ? WHERE id = ?", status, now, d.webhookID)
                    continue
                }
                let attempts = d.attempts + 1
                let delay = min(Int64(3_600_000), Int64(1000) << Int64(min(attempts - 1, 22)))
                if now + delay - d.createdAt > Self.webhookRetryWindow {
                    try s.execute("UPDATE webhook_deliveries SET state = 'failed', attempts = ?, last_error = ? WHERE id = ?", attempts, status, d.id)
                    try s.execute("""
                        UPDATE webhooks SET failures = failures + 1, last_status = ?, enabled = CASE WHEN failures + 1 >= 5 THEN 0 ELSE enabled END WHERE id = ?
                        """, status, d.webhookID)
                } else {
                    try s.execute("UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?", attempts, now + delay, status, d.id)
                    try s.execute("UPDATE webhooks SET last_status = ? WHERE id = ?", status, d.webhookID)
                }
            }
        }
        webhooksChanged()
    }


    public static let webhookRetryWindow: Int64 = 24 * 3600 * 1000

    /// Every delivery of one notification to a webhook, newest first (for the console and tests).
    public func webhookDeliveries(webhookID: Int64) throws(StratusError) -> [(nid: String, state: String, attempts: Int, lastError: String?)] {
        try read { s, _ in
            try s.all("SELECT nid, state, attempts, last_error FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT 200", [webhookID]) { r in
                (r.string(0) ?? "", r.string(1) ?? "", Int(r.int64(2) ?? 0), r.string(3))
            }
        }
    }

    /// The newest webhook deliveries, newest first.
    public func recentWebhookDeliveries(limit: Int = 200) throws(StratusError) -> [WebhookDeliveryLogEntry] {
        try read { db, _ in
            try db.all("""
                SELECT d.webhook_id, w.url, d.nid, d.payload, d.state, d.attempts, d.last_error, d.created_at FROM webhook_deliveries d
                JOIN webhooks w ON w.id = d.webhook_id ORDER BY d.id DESC LIMIT ?
                """, [limit]) { row in
                let body = (try? JSON.parse(Data((row.string(3) ?? "").utf8))) ?? .object([:])
                return WebhookDeliveryLogEntry(webhookID: row.int64(0) ?? 0, url: row.string(1) ?? "", notificationID: row.string(2) ?? "",
                                               recordType: body["recordType"]?.string ?? "",
                                               recordName: body["recordName"]?.string ?? "", reason: body["reason"]?.string ?? "",
                                               state: row.string(4) ?? "", attempts: Int(row.int64(5) ?? 0), lastError: row.string(6), createdAt: row.int64(7) ?? 0)
            }
        }
    }
}
