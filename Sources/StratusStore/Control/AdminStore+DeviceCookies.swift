import Foundation
import StratusModel

/// Device cookies (OWASP's defence against lock-out): a browser that signed in to an account successfully gets a
/// random token for that account, kept here as its hash. Presenting it with the right password is trusted at
/// once, however many failures strangers caused from the same address; failures with it count against that
/// device alone (see `SignInThrottle`).
extension AdminStore {
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
                try DeviceCookies.issue(Secrets.tokenHash(token), account: account, at: now,
                                        lifetime: Self.deviceCookieLifetime,
                                        keep: Self.deviceCookiesPerAccount, s)
            }
        }
        return token
    }

    /// Whether `token` is a live device cookie of `account`.
    public func isDeviceCookie(_ token: String, of account: String) throws(StratusError) -> Bool {
        guard token.utf8.count == 64 else { return false }
        let hash = Secrets.tokenHash(token)
        return try guarded {
            try control.read { s in try DeviceCookies.isLive(hash, account: account, at: WallClock.nowMillis(), s) }
        }
    }
}
