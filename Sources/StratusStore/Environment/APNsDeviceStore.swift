import Foundation
import StratusModel
import Synchronization

/// Devices registered for push with the token Apple gave the app (`tokens/register`), and what was pushed to
/// them. A device reads its user's notification log from where it got to, as a web courier token does: the write
/// that makes a notification does nothing more for push, and a server that was down sends what it missed.
public final class APNsDeviceStore: EnvironmentPart {
    let core: EnvironmentDatabase
    let notifications: NotificationStore
    /// Whether any device is registered for APNs, and when that was read (see `hasAPNsDevices`).
    let apnsDevicePresence = Mutex<(at: ContinuousClock.Instant, any: Bool)?>(nil)

    init(core: EnvironmentDatabase, notifications: NotificationStore) {
        self.core = core
        self.notifications = notifications
    }

    /// A user's devices beyond this many: the oldest registration goes (an app registers once per install).
    public static let maximumAPNsDevicesPerUser = 32
    /// Deliveries kept for the console: the newest this many.
    static let keptAPNsDeliveries = 2_000

    /// Registers `token` for `user`, bound to the session that registers it (`session`: the hash of its web auth
    /// token). A token another user registered moves to this one only when the session that registered it has ended
    /// (`sessionIsLive` says whether a session hash is still signed in): a device token is not secret enough to be
    /// proof of holding the device, while being signed in on it is. Otherwise ACCESS_DENIED, and the device stays
    /// its user's. A device that moves hears only what comes next.
    public func registerAPNsDevice(token: String, user: String, apnsEnvironment: APNsEnvironment, session: String? = nil,
                                   sessionIsLive: (String) throws(StratusError) -> Bool = { _ in false }) throws(StratusError) {
        guard APNsDevice.validToken(token) else { throw .badRequest("apnsToken is not an APNs device token (hex) nor a token tokens/create made") }
        let token = token.lowercased()
        let start = try notifications.lastNotificationID(for: user)
        let now = WallClock.nowMillis()
        let holder: (user: String, session: String?)? = try read { s, _ in
            try s.one(#"SELECT "user", web_token FROM apns_devices WHERE token = ?"#, [token]) { ($0.string(0) ?? "", $0.string(1)) }
        }
        if let holder, holder.user != user, let theirs = holder.session, try sessionIsLive(theirs) {
            throw StratusError(.accessDenied, "this device token is registered to another user who is still signed in on it: they sign out first")
        }
        try write { s, _ in
            let known = try s.one(#"SELECT "user", apns_environment, web_token FROM apns_devices WHERE token = ?"#, [token]) {
                ($0.string(0) ?? "", $0.string(1) ?? "", $0.string(2))
            }
            if let known, known.0 == user, known.1 == apnsEnvironment.rawValue {
                if let session, known.2 != session { try s.execute("UPDATE apns_devices SET web_token = ? WHERE token = ?", session, token) }
                return
            }
            try s.execute("DELETE FROM apns_devices WHERE token = ?", token)
            try s.execute(#"INSERT INTO apns_devices(token, "user", apns_environment, created_at, delivered_through, web_token) VALUES (?, ?, ?, ?, ?, ?)"#,
                          token, user, apnsEnvironment.rawValue, now, start, session)
            let tokens = try s.all(#"SELECT token FROM apns_devices WHERE "user" = ? ORDER BY created_at DESC, token"#, [user]) { $0.string(0) }
            for old in tokens.dropFirst(Self.maximumAPNsDevicesPerUser) { try s.execute("DELETE FROM apns_devices WHERE token = ?", old) }
        }
        apnsDevicePresence.withLock { $0 = nil }
    }

    private static let apnsDeviceColumns = #"token, "user", apns_environment, created_at, delivered_through"#

    private static func apnsDevice(_ r: any SQLRow) -> APNsDevice {
        APNsDevice(token: r.string(0) ?? "", userRecordName: r.string(1) ?? "", apnsEnvironment: APNsEnvironment(rawValue: r.string(2) ?? "") ?? .development,
                   createdAt: r.int64(3) ?? 0, deliveredThrough: r.int64(4) ?? 0)
    }

    /// Every registered device, oldest first; with `user`, that user's.
    public func apnsDevices(user: String? = nil) throws(StratusError) -> [APNsDevice] {
        try read { s, _ in
            if let user {
                return try s.all(#"SELECT \#(Self.apnsDeviceColumns) FROM apns_devices WHERE "user" = ? ORDER BY created_at, token"#, [user], Self.apnsDevice)
            }
            return try s.all("SELECT \(Self.apnsDeviceColumns) FROM apns_devices ORDER BY created_at, token", [], Self.apnsDevice)
        }
    }

    /// Whether any device is registered, from memory when asked in the last 5 seconds or since a registration here.
    public func hasAPNsDevices() throws(StratusError) -> Bool {
        if let known = apnsDevicePresence.withLock({ p in p.flatMap { ContinuousClock.now - $0.at < .seconds(5) ? $0.any : nil } }) { return known }
        let any = try read { s, _ in try s.exists("SELECT 1 FROM apns_devices LIMIT 1") }
        apnsDevicePresence.withLock { $0 = (ContinuousClock.now, any) }
        return any
    }

    /// Claims devices for one server's pass, for `lease` milliseconds: of `tokens`, those no other server holds.
    /// Servers on one PostgreSQL database thus never push the same notification twice; a server that dies holding
    /// a claim delays its devices by the lease.
    public func claimAPNsDevices(_ tokens: [String], lease: Int64 = 60_000) throws(StratusError) -> [String] {
        guard !tokens.isEmpty else { return [] }
        let now = WallClock.nowMillis()
        return try write { s, _ in
            try tokens.filter { try s.execute("UPDATE apns_devices SET claimed_until = ? WHERE token = ? AND claimed_until < ?", now + lease, $0, now) == 1 }
        }
    }

    /// Ends a pass over claimed devices: moves their positions forward (never back) where notifications were
    /// pushed, and lets go of the claims.
    public func finishAPNsDevices(_ tokens: [String], delivered positions: [String: Int64]) throws(StratusError) {
        guard !tokens.isEmpty else { return }
        try write { s, _ in
            for token in tokens {
                if let through = positions[token] {
                    try s.execute("UPDATE apns_devices SET claimed_until = 0, delivered_through = \(s.dialect.greatest("delivered_through", "?")) WHERE token = ?",
                                  through, token)
                } else {
                    try s.execute("UPDATE apns_devices SET claimed_until = 0 WHERE token = ?", token)
                }
            }
        }
    }

    /// Unregisters a user's devices: those registered with one session (by its hash), or all of them (sign-out).
    public func removeAPNsDevices(user: String, madeWith session: String?) throws(StratusError) {
        try deleteUserRows(of: "apns_devices", user: user, madeWith: session)
        apnsDevicePresence.withLock { $0 = nil }
    }

    public func removeAPNsDevice(token: String) throws(StratusError) {
        _ = try write { s, _ in try s.execute("DELETE FROM apns_devices WHERE token = ?", token.lowercased()) }
        apnsDevicePresence.withLock { $0 = nil }
    }

    /// Records pushes' outcomes: one row per device and notification, updated by each retry; the oldest rows go
    /// beyond what the console shows.
    public func recordAPNsDeliveries(_ deliveries: [APNsDelivery]) throws(StratusError) {
        guard !deliveries.isEmpty else { return }
        try write { s, _ in
            for d in deliveries {
                let updated = try s.execute("""
                    UPDATE apns_deliveries SET state = ?, status = ?, reason = ?, apns_id = ?, attempts = ?, at = ? WHERE token = ? AND nid = ?
                    """, d.state.rawValue, Int64(d.status), d.reason, d.apnsID, Int64(d.attempts), d.at, d.token, d.notificationID)
                if updated == 0 {
                    try s.execute("""
                        INSERT INTO apns_deliveries(token, "user", nid, state, status, reason, apns_id, attempts, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """, d.token, d.userRecordName, d.notificationID, d.state.rawValue, Int64(d.status), d.reason, d.apnsID, Int64(d.attempts), d.at)
                }
            }
            if let newest = try s.int64("SELECT MAX(id) FROM apns_deliveries"), newest > Int64(Self.keptAPNsDeliveries) {
                try s.execute("DELETE FROM apns_deliveries WHERE id <= ?", newest - Int64(Self.keptAPNsDeliveries))
            }
        }
    }

    /// The newest pushes first.
    public func apnsDeliveries(limit: Int = 200) throws(StratusError) -> [APNsDelivery] {
        try read { s, _ in
            try s.all(#"SELECT id, token, "user", nid, state, status, reason, apns_id, attempts, at FROM apns_deliveries ORDER BY id DESC LIMIT ?"#, [Int64(limit)]) { r in
                APNsDelivery(id: r.int64(0) ?? 0, token: r.string(1) ?? "", userRecordName: r.string(2) ?? "", notificationID: r.string(3) ?? "",
                             state: APNsDelivery.State(rawValue: r.string(4) ?? "") ?? .failed, status: Int(r.int64(5) ?? 0), reason: r.string(6),
                             apnsID: r.string(7), attempts: Int(r.int64(8) ?? 0), at: r.int64(9) ?? 0)
            }
        }
    }
}
