/// `used_nonces` (control database): the identity tokens' nonces already accepted, by a digest of issuer and nonce,
/// each until its token would have expired anyway, so that a nonce signs in once. Every statement on it is here.
enum UsedNonces {
    enum Column: String, TableColumn { case digest, expiresAt = "expires_at" }

    /// Takes a nonce (forgetting those past their token's life first); false when it was taken already.
    static func take(_ digest: String, expiresAt: Int64, now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM used_nonces WHERE expires_at < ?", now)
        return try s.execute("INSERT INTO used_nonces(digest, expires_at) VALUES (?, ?) ON CONFLICT(digest) DO NOTHING",
                             digest, expiresAt) == 1
    }
}
