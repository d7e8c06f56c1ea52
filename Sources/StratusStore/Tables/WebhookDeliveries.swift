import Foundation
import StratusModel

/// `webhook_deliveries`: the queue of what each webhook is to be told, with each delivery's attempts. Every
/// statement on it is here.
enum WebhookDeliveries {
    enum Column: String, TableColumn {
        case id, nid, payload, attempts, state, webhookID = "webhook_id", nextAttemptAt = "next_attempt_at"
        case lastError = "last_error", createdAt = "created_at"
    }

    /// Queues a delivery, due now.
    static func enqueue(webhook: Int64, nid: String, payload: String, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO webhook_deliveries(webhook_id, nid, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?)", webhook, nid, payload, now, now)
    }

    /// A due delivery's columns (`d`) and its webhook's (`w`).
    private static let due = Selection<Column>([.id, .webhookID], as: "d")
    private static let dueHook = Selection<WebhookRows.Column>([.url, .secret], as: "w")
    private static let dueRest = Selection<Column>([.nid, .payload, .attempts, .createdAt], as: "d")

    private static func delivery(_ r: any SQLRow) -> WebhookStore.WebhookDelivery {
        let d = NamedRow(r, due), w = NamedRow(r, dueHook, offset: d.end), rest = NamedRow(r, dueRest, offset: w.end)
        return WebhookStore.WebhookDelivery(id: d.int64(.id) ?? 0, webhookID: d.int64(.webhookID) ?? 0,
                                            url: w.string(.url) ?? "", secret: w.string(.secret) ?? "",
                                            notificationID: rest.string(.nid) ?? "", payload: rest.string(.payload) ?? "",
                                            attempts: Int(rest.int64(.attempts) ?? 0), createdAt: rest.int64(.createdAt) ?? 0)
    }

    private static var dueColumns: String { "\(due.sql), \(dueHook.sql), \(dueRest.sql)" }

    /// Deliveries due at `now`, oldest first, for enabled webhooks.
    static func due(now: Int64, limit: Int, _ s: any SQLSession) throws -> [WebhookStore.WebhookDelivery] {
        try s.all("""
            SELECT \(dueColumns) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND w.enabled = 1 ORDER BY d.next_attempt_at, d.id LIMIT ?
            """, [now, limit], delivery)
    }

    /// The same, claimed until `until` (PostgreSQL, where several servers deliver): their next attempt moves past it,
    /// and rows another server is claiming at that moment are skipped, not waited for.
    static func claimDue(now: Int64, until: Int64, limit: Int,
                         _ s: any SQLSession) throws -> [WebhookStore.WebhookDelivery] {
        try s.all("""
            UPDATE webhook_deliveries d SET next_attempt_at = ? FROM webhooks w
            WHERE w.id = d.webhook_id AND d.id IN (
                SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w2 ON w2.id = d2.webhook_id
                WHERE d2.state = 'pending' AND d2.next_attempt_at <= ? AND w2.enabled = 1
                ORDER BY d2.next_attempt_at, d2.id LIMIT ? FOR UPDATE OF d2 SKIP LOCKED)
            RETURNING \(dueColumns)
            """, [until, now, Int64(limit)], delivery)
    }

    static func delivered(id: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhook_deliveries SET state = 'delivered', attempts = attempts + 1, last_error = NULL WHERE id = ?", id)
    }

    static func failed(id: Int64, attempts: Int, error: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhook_deliveries SET state = 'failed', attempts = ?, last_error = ? WHERE id = ?",
                      attempts, error, id)
    }

    static func retry(id: Int64, attempts: Int, at next: Int64, error: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
                      attempts, next, error, id)
    }

    /// A webhook's newest deliveries (at most 200).
    static func of(webhook: Int64, _ s: any SQLSession) throws -> [(nid: String, state: String, attempts: Int,
                                                                    lastError: String?)] {
        let columns = Selection<Column>([.nid, .state, .attempts, .lastError])
        return try s.all("SELECT \(columns.sql) FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT 200", [webhook]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.nid) ?? "", row.string(.state) ?? "", Int(row.int64(.attempts) ?? 0),
                    row.string(.lastError))
        }
    }

    /// The newest deliveries of every webhook, with the webhook's URL.
    static func recent(limit: Int, _ s: any SQLSession) throws -> [WebhookDeliveryLogEntry] {
        let d = Selection<Column>([.webhookID, .nid, .payload, .state, .attempts, .lastError, .createdAt], as: "d")
        let w = Selection<WebhookRows.Column>([.url], as: "w")
        return try s.all("""
            SELECT \(d.sql), \(w.sql) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id ORDER BY d.id DESC LIMIT ?
            """, [limit]) { r in
            let row = NamedRow(r, d), hook = NamedRow(r, w, offset: row.end)
            let body = (try? JSON.parse(Data((row.string(.payload) ?? "").utf8))) ?? .object([:])
            return WebhookDeliveryLogEntry(webhookID: row.int64(.webhookID) ?? 0, url: hook.string(.url) ?? "",
                                           notificationID: row.string(.nid) ?? "",
                                           recordType: body["recordType"]?.string ?? "", recordName: body["recordName"]?.string ?? "",
                                           reason: body["reason"]?.string ?? "", state: row.string(.state) ?? "", attempts: Int(row.int64(.attempts) ?? 0),
                                           lastError: row.string(.lastError), createdAt: row.int64(.createdAt) ?? 0)
        }
    }
}
