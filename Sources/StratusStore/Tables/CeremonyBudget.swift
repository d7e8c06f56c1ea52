/// The cap on ceremonies under way (`sign_in_flows`, `passkey_challenges`: tables with `address` and `expires_at`)
/// that one client address, and the server, may hold; what has expired is forgotten first. Every statement of it is
/// here.
enum CeremonyBudget {
    static func admits(_ table: String, address: String, perAddress: Int, total: Int, now: Int64,
                       _ s: any SQLSession) throws -> Bool {
        try s.execute("DELETE FROM \(table) WHERE expires_at < ?", now)
        let mine = try s.int64("SELECT COUNT(*) FROM \(table) WHERE address = ?", [address]) ?? 0
        let all = try s.int64("SELECT COUNT(*) FROM \(table)") ?? 0
        return mine < perAddress && all < total
    }
}
