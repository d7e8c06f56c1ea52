import Foundation

/// `notification_outbox`: the changes writes handed off (`NotificationHandOff`) that the fan-out has not turned into
/// notifications yet, oldest first, with how far a change left half done got. Every statement on it is here.
enum NotificationOutboxRows {
    enum Column: String, TableColumn {
        case id, change, createdAt = "created_at", resumeAfter = "resume_after"
    }

    private static let pending = Selection<Column>([.id, .change, .resumeAfter])

    /// Hands one change to the fan-out, in the write's transaction.
    static func add(_ change: Data, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO notification_outbox(created_at, change) VALUES (?, ?)", now, change)
    }

    static func isEmpty(_ s: any SQLSession) throws -> Bool {
        try !s.exists("SELECT 1 FROM notification_outbox", [])
    }

    /// The oldest `limit` changes, locked to this transaction on PostgreSQL (another server's fan-out takes the
    /// ones after them, or these once this one commits).
    static func oldest(_ limit: Int, _ s: any SQLSession) throws -> [(id: Int64, change: Data, resumeAfter: String?)] {
        let lock = s.dialect == .postgres ? " FOR UPDATE" : ""
        return try s.all("SELECT \(pending.sql) FROM notification_outbox ORDER BY id LIMIT ?\(lock)", [limit]) { r in
            let row = NamedRow(r, pending)
            return row.int64(.id).map { ($0, row.data(.change) ?? Data(), row.string(.resumeAfter)) }
        }
    }

    /// Keeps how far a change got: the key of the last subscription looked at.
    static func resume(_ id: Int64, after key: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE notification_outbox SET resume_after = ? WHERE id = ?", key, id)
    }

    /// Takes fanned-out changes out.
    static func remove(_ ids: [Int64], _ s: any SQLSession) throws {
        guard !ids.isEmpty else { return }
        try s.execute("DELETE FROM notification_outbox WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                      ids.map { SQLValue.int64($0) })
    }
}
