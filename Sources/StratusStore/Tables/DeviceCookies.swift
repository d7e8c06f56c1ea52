/// `device_cookies` (control database): the device cookies browsers that signed in were given, by their hash, with
/// the account each is for (see `AdminStore.issueDeviceCookie`). Every statement on it is here, and its migration.
enum DeviceCookies {
    enum Column: String, TableColumn {
        case hash, account, createdAt = "created_at", expiresAt = "expires_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v11-device-cookies", ddl: """
            CREATE TABLE device_cookies(hash TEXT PRIMARY KEY, account TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX device_cookies_account ON device_cookies(account, created_at);
            """)
    }

    /// Keeps a new cookie's hash, after forgetting expired ones; the account keeps its newest `keep`.
    static func issue(_ hash: String, account: String, at now: Int64, lifetime: Int64, keep: Int,
                      _ s: any SQLSession) throws {
        try s.execute("DELETE FROM device_cookies WHERE expires_at < ?", now)
        try s.execute("INSERT INTO device_cookies(hash, account, created_at, expires_at) VALUES (?, ?, ?, ?)", hash,
                      account, now, now + lifetime)
        let old = try s.all("SELECT hash FROM device_cookies WHERE account = ? ORDER BY created_at DESC",
                            [account]) { NamedRow($0, Selection<Column>([.hash])).string(.hash) }
        for h in old.dropFirst(keep) { try s.execute("DELETE FROM device_cookies WHERE hash = ?", h) }
    }

    static func isLive(_ hash: String, account: String, at now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM device_cookies WHERE hash = ? AND account = ? AND expires_at > ?", [hash, account,
                now])
    }
}
