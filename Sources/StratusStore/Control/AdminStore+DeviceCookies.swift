import Foundation
import StratusModel

/// Device cookies (OWASP's defence against lock-out): a browser that signed in to an account successfully gets a
/// random token for that account, kept here as its hash. Presenting it with the right password is trusted at
/// once, however many failures strangers caused from the same address; failures with it count against that
/// device alone (see `SignInThrottle`).
extension AdminStore {
    static func registerDeviceCookieMigrations(_ m: inout SQLMigrations) {
        m.add("v11-device-cookies", ddl: """
            CREATE TABLE device_cookies(hash TEXT PRIMARY KEY, account TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
            CREATE INDEX device_cookies_account ON device_cookies(account, created_at);
            """)
    }

    /// How long a device cookie stays good: half a year.
    public static let deviceCookieLifetime: Int64 = 180 * 24 * 3600 * 1000
    /// Devices one account keeps (the newest).
    static let deviceCookiesPerAccount = 20

    /// A new device cookie for `account` (what the throttle names it: `admin:email`, …).
    public func issueDeviceCookie(account: String) throws(StratusError) -> String {
        let token = Secrets.hex(Secrets.randomBytes(32))
        let now = WallClock.nowMillis()
        try guarded {
            try control.write { s in
                try s.execute("DELETE FROM device_cookies WHERE expires_at < ?", now)
                try s.execute("INSERT INTO device_cookies(hash, account, created_at, expires_at) VALUES (?, ?, ?, ?)",
                              Secrets.tokenHash(token), account, now, now + Self.deviceCookieLifetime)
                let old = try s.all("SELECT hash FROM device_cookies WHERE account = ? ORDER BY created_at DESC", [account]) { $0.string(0) }
                for h in old.dropFirst(Self.deviceCookiesPerAccount) { try s.execute("DELETE FROM device_cookies WHERE hash = ?", h) }
            }
        }
        return token
    }

    /// Whether `token` is a live device cookie of `account`.
    public func isDeviceCookie(_ token: String, of account: String) throws(StratusError) -> Bool {
        guard token.utf8.count == 64 else { return false }
        let hash = Secrets.tokenHash(token)
        return try guarded {
            try control.read { s in
                try s.exists("SELECT 1 FROM device_cookies WHERE hash = ? AND account = ? AND expires_at > ?", [hash, account, WallClock.nowMillis()])
            }
        }
    }
}
