/// `used_upload_tickets`: the upload URLs' nonces already taken, each until its URL would have expired anyway, so
/// that an upload URL uploads once. Every statement on it is here.
enum UsedUploadTickets {
    enum Column: String, TableColumn { case nonce, expiresAt = "expires_at" }

    static func isUsed(_ nonce: String, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM used_upload_tickets WHERE nonce = ?", [nonce])
    }

    /// Takes a nonce (forgetting those past their URL's life first); false when it was taken already.
    static func take(_ nonce: String, expiresAt: Int64, now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM used_upload_tickets WHERE expires_at < ?", now)
        return try s.execute("INSERT INTO used_upload_tickets(nonce, expires_at) VALUES (?, ?) ON CONFLICT(nonce) DO NOTHING", nonce, expiresAt) == 1
    }
}
