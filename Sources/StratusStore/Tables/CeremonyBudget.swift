/// The ceremonies under way (`sign_in_flows`, `passkey_challenges`, `pending_links`, `admin_passkey_challenges`:
/// tables with `address` and `expires_at`): the cap one client address, and the server, may hold (what has expired
/// is forgotten first), and taking one, once. Every statement of it is here.
enum CeremonyBudget {
    static func admits(_ table: String, address: String, perAddress: Int, total: Int, now: Int64,
                       _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM \(table) WHERE expires_at < ?", now)
        let mine = try s.int64("SELECT COUNT(*) FROM \(table) WHERE address = ?", [address]) ?? 0
        let all = try s.int64("SELECT COUNT(*) FROM \(table)") ?? 0
        return mine < perAddress && all < total
    }

    /// Takes the ceremony whose `keyColumn` is `key` once: its row is deleted whatever it held, and what `map`
    /// made of it is kept only while it has not expired.
    static func take<T>(_ table: String, keyColumn: String, key: String, columns: String, now: Int64,
                        _ s: any SQLSession, expiresAt: (T) -> Int64, _ map: (any SQLRow) -> T?) throws -> T? {
        let found = try s.one("SELECT \(columns) FROM \(table) WHERE \(keyColumn) = ?", [key], map)
        try s.execute("DELETE FROM \(table) WHERE \(keyColumn) = ?", key)
        return found.flatMap { expiresAt($0) >= now ? $0 : nil }
    }
}
