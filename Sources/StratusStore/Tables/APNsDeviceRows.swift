import StratusModel

/// `apns_devices`: the devices registered for push with the token Apple gave the app, each with how far it has been
/// pushed its user's notifications, the session that registered it and a server's claim on it. Every statement on
/// it is here.
enum APNsDeviceRows {
    enum Column: String, TableColumn {
        case token, user, apnsEnvironment = "apns_environment", createdAt = "created_at"
        case deliveredThrough = "delivered_through", webToken = "web_token", claimedUntil = "claimed_until"
    }

    private static let device = Selection<Column>([.token, .user, .apnsEnvironment, .createdAt, .deliveredThrough])

    private static func device(_ r: any SQLRow) -> APNsDevice {
        let row = NamedRow(r, device)
        return APNsDevice(token: row.string(.token) ?? "", userRecordName: row.string(.user) ?? "",
                          apnsEnvironment: APNsEnvironment(rawValue: row.string(.apnsEnvironment) ?? "") ?? .development,
                          createdAt: row.int64(.createdAt) ?? 0, deliveredThrough: row.int64(.deliveredThrough) ?? 0)
    }

    /// Who holds a token, in which APNs environment, registered by which session.
    static func holder(_ token: String, _ s: any SQLSession) throws -> (user: String, apnsEnvironment: String,
            session: String?)? {
        let columns = Selection<Column>([.user, .apnsEnvironment, .webToken])
        return try s.one("SELECT \(columns.sql) FROM apns_devices WHERE token = ?", [token]) { r in
            let row = NamedRow(r, columns)
            return (row.string(.user) ?? "", row.string(.apnsEnvironment) ?? "", row.string(.webToken))
        }
    }

    static func setSession(_ token: String, _ session: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE apns_devices SET web_token = ? WHERE token = ?", session, token)
    }

    /// Registers a token anew for `user` (whoever held it before), pushed from `start` on; a user's devices past
    /// `keep` go, oldest first.
    static func register(_ token: String, user: String, apnsEnvironment: APNsEnvironment, at now: Int64,
                         from start: Int64, session: String?,
                         keep: Int, _ s: any SQLSession) throws {
        try remove(token, s)
        try s.execute(#"INSERT INTO apns_devices(token, "user", apns_environment, created_at, delivered_through, web_token) VALUES (?, ?, ?, ?, ?, ?)"#,
                      token, user, apnsEnvironment.rawValue, now, start, session)
        let columns = Selection<Column>([.token])
        let tokens = try s.all(#"SELECT \#(columns.sql) FROM apns_devices WHERE "user" = ? ORDER BY created_at DESC, token"#, [user]) {
            NamedRow($0, columns).string(.token)
        }
        for old in tokens.dropFirst(keep) { try remove(old, s) }
    }

    static func remove(_ token: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM apns_devices WHERE token = ?", token)
    }

    /// Every registered device, oldest first; with `user`, that user's.
    static func all(user: String?, _ s: any SQLSession) throws -> [APNsDevice] {
        if let user { return try s.all(#"SELECT \#(device.sql) FROM apns_devices WHERE "user" = ? ORDER BY created_at, token"#, [user], device) }
        return try s.all("SELECT \(device.sql) FROM apns_devices ORDER BY created_at, token", [], device)
    }

    static func any(_ s: any SQLSession) throws -> Bool { try s.exists("SELECT 1 FROM apns_devices LIMIT 1") }

    /// Claims a device until `until` unless another server holds it; whether it was claimed.
    static func claim(_ token: String, until: Int64, now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("UPDATE apns_devices SET claimed_until = ? WHERE token = ? AND claimed_until < ?", until, token,
                      now) == 1
    }

    /// Lets go of a claim, moving the device's position forward (never back) to `through` when given.
    static func release(_ token: String, deliveredThrough through: Int64?, _ s: any SQLSession) throws {
        if let through {
            try s.execute("UPDATE apns_devices SET claimed_until = 0, delivered_through = \(s.dialect.greatest("delivered_through", "?")) WHERE token = ?", through, token)
        } else {
            try s.execute("UPDATE apns_devices SET claimed_until = 0 WHERE token = ?", token)
        }
    }
}
