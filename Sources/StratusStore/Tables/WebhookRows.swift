import Foundation
import StratusModel

/// `webhooks`: the receivers of a container environment's record changes, each with its signing secret and the
/// outcome of its last deliveries. Every statement on it is here; its queue is `WebhookDeliveries`.
enum WebhookRows {
    enum Column: String, TableColumn {
        case id, url, enabled, failures, secret, recordTypes = "record_types", lastStatus = "last_status"
        case lastDeliveryAt = "last_delivery_at", createdAt = "created_at"
    }

    private static let webhook = Selection<Column>([.id, .url, .recordTypes, .enabled, .failures, .lastStatus,
                                                    .lastDeliveryAt, .createdAt])

    private static func webhook(_ r: any SQLRow) -> Webhook {
        let row = NamedRow(r, webhook)
        let types = (try? JSONDecoder().decode([String].self,
                                               from: Data((row.string(.recordTypes) ?? "[]").utf8))) ?? []
        return Webhook(id: row.int64(.id) ?? 0, url: row.string(.url) ?? "", recordTypes: types,
                       enabled: row.bool(.enabled) ?? false,
                       failures: Int(row.int64(.failures) ?? 0), lastStatus: row.string(.lastStatus), lastDeliveryAt: row.int64(.lastDeliveryAt),
                       createdAt: row.int64(.createdAt) ?? 0)
    }

    /// A new webhook's row; returns its id.
    static func insert(url: String, recordTypes: String, secret: String, at now: Int64,
                       _ s: any SQLSession) throws -> Int64 {
        try s.int64("INSERT INTO webhooks(url, record_types, secret, created_at) VALUES (?, ?, ?, ?) RETURNING id",
                    [url, recordTypes, secret, now]) ?? 0
    }

    /// Every webhook; with `enabledOnly`, those that deliver.
    static func all(enabledOnly: Bool = false, _ s: any SQLSession) throws -> [Webhook] {
        try s.all("SELECT \(webhook.sql) FROM webhooks\(enabledOnly ? " WHERE enabled = 1" : " ORDER BY id")", [],
                  webhook)
    }

    static func any(_ s: any SQLSession) throws -> Bool { try s.exists("SELECT 1 FROM webhooks LIMIT 1") }

    /// Removes a webhook and what it still had to deliver; false when there is none of that id.
    static func delete(id: Int64, _ s: any SQLSession) throws -> Bool {
        guard try s.execute("DELETE FROM webhooks WHERE id = ?", id) == 1 else { return false }
        try s.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ? AND state = 'pending'", id)
        return true
    }

    /// Turns a webhook on (its failures forgotten) or off; false when there is none of that id.
    static func setEnabled(id: Int64, _ enabled: Bool, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE webhooks SET enabled = ?, failures = CASE WHEN ? = 1 THEN 0 ELSE failures END WHERE id = ?", enabled, enabled, id) == 1
    }

    /// A delivery succeeded: the webhook's failures in a row start again.
    static func delivered(id: Int64, status: String, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhooks SET failures = 0, last_status = ?, last_delivery_at = ? WHERE id = ?", status,
                      now, id)
    }

    /// A delivery failed for good: one more failure in a row, and the webhook is disabled at five.
    static func failed(id: Int64, status: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhooks SET failures = failures + 1, last_status = ?, enabled = CASE WHEN failures + 1 >= 5 THEN 0 ELSE enabled END WHERE id = ?",
                      status, id)
    }

    /// An attempt failed and will be retried.
    static func attempted(id: Int64, status: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE webhooks SET last_status = ? WHERE id = ?", status, id)
    }
}
