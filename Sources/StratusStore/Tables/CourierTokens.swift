/// `courier_tokens`: CloudKit JS's web courier tokens, by hash, each with its user, how far it has been answered,
/// when it expires and the sign-in it was made with. Every statement on it is here (`SignInBoundRows` ends a
/// sign-in's rows of this table and others alike).
enum CourierTokens {
    enum Column: String, TableColumn {
        case token, user, createdAt = "created_at", deliveredThrough = "delivered_through"
        case expiresAt = "expires_at", webToken = "web_token"
    }

    /// Keeps a token (by hash) for `user`, answered from `start` on, after dropping the expired ones and the user's
    /// oldest past `keep - 1`.
    static func keep(_ hash: String, user: String, from start: Int64, expiresAt: Int64, webToken: String?, keep: Int,
                     now: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM courier_tokens WHERE expires_at < ?", now)
        try s.execute("""
            DELETE FROM courier_tokens WHERE token IN (SELECT token FROM courier_tokens WHERE "user" = ?
                ORDER BY created_at DESC, token LIMIT 1000000 OFFSET ?)
            """, user, keep - 1)
        try s.execute("""
            INSERT INTO courier_tokens(token, "user", created_at, delivered_through, expires_at, web_token) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(token) DO UPDATE SET "user" = excluded."user", created_at = excluded.created_at, delivered_through = excluded.delivered_through,
                expires_at = excluded.expires_at, web_token = excluded.web_token
            """, hash, user, now, start, expiresAt, webToken)
    }

    private static let live = Selection<Column>([.user, .deliveredThrough])

    /// A live token's user and how far it has been answered.
    static func find(_ hash: String, now: Int64, _ s: any SQLSession) throws -> (user: String,
            deliveredThrough: Int64)? {
        try s.one("SELECT \(live.sql) FROM courier_tokens WHERE token = ? AND expires_at > ?", [hash, now]) { r in
            let row = NamedRow(r, live)
            return (row.string(.user) ?? "", row.int64(.deliveredThrough) ?? 0)
        }
    }

    /// Moves a token's position forward (never back).
    static func answered(_ hash: String, through: Int64, _ s: any SQLSession) throws {
        try s.execute("UPDATE courier_tokens SET delivered_through = \(s.dialect.greatest("delivered_through", "?")) WHERE token = ?", through, hash)
    }

    /// Every token's user, when it was made and how far it has been answered (the console's notification log).
    static func progress(_ s: any SQLSession) throws -> [(user: String, createdAt: Int64, through: Int64)] {
        let columns = Selection<Column>([.user, .createdAt, .deliveredThrough])
        return try s.all("SELECT \(columns.sql) FROM courier_tokens") { r in
            let row = NamedRow(r, columns)
            return (row.string(.user) ?? "", row.int64(.createdAt) ?? 0, row.int64(.deliveredThrough) ?? 0)
        }
    }
}
