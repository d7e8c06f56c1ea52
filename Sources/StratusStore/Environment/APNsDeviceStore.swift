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
    public func registerAPNsDevice(token: String, user: String, apnsEnvironment: APNsEnvironment,
                                   session: String? = nil,
                                   sessionIsLive: (String) throws(StratusError) -> Bool = { _ in false }) throws(StratusError) {
        guard APNsDevice.validToken(token) else { throw .badRequest("apnsToken is not an APNs device token (hex) nor a token tokens/create made") }
        let token = token.lowercased()
        let start = try notifications.lastNotificationID(for: user)
        let now = WallClock.nowMillis()
        let holder: (user: String, session: String?)? = try read { s, _ in
            try APNsDeviceRows.holder(token, s).map { ($0.user, $0.session) }
        }
        if let holder, holder.user != user, let theirs = holder.session, try sessionIsLive(theirs) {
            throw StratusError(.accessDenied,
                               "this device token is registered to another user who is still signed in on it: they sign out first")
        }
        try write { s, _ in
            if let known = try APNsDeviceRows.holder(token,
                                                     s), known.user == user, known.apnsEnvironment == apnsEnvironment.rawValue {
                if let session, known.session != session { try APNsDeviceRows.setSession(token, session, s) }
                return
            }
            try APNsDeviceRows.register(token, user: user, apnsEnvironment: apnsEnvironment, at: now, from: start,
                                        session: session,
                                        keep: Self.maximumAPNsDevicesPerUser, s)
        }
        apnsDevicePresence.withLock { $0 = nil }
    }

    /// Every registered device, oldest first; with `user`, that user's.
    public func apnsDevices(user: String? = nil) throws(StratusError) -> [APNsDevice] {
        try read { s, _ in try APNsDeviceRows.all(user: user, s) }
    }

    /// Whether any device is registered, from memory when asked in the last 5 seconds or since a registration here.
    public func hasAPNsDevices() throws(StratusError) -> Bool {
        if let known = apnsDevicePresence.withLock({ p in p.flatMap { ContinuousClock.now - $0.at < .seconds(5) ? $0.any : nil } }) { return known }
        let any = try read { s, _ in try APNsDeviceRows.any(s) }
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
            try tokens.filter { try APNsDeviceRows.claim($0, until: now + lease, now: now, s) }
        }
    }

    /// Ends a pass over claimed devices: moves their positions forward (never back) where notifications were
    /// pushed, and lets go of the claims.
    public func finishAPNsDevices(_ tokens: [String], delivered positions: [String: Int64]) throws(StratusError) {
        guard !tokens.isEmpty else { return }
        try write { s, _ in
            for token in tokens { try APNsDeviceRows.release(token, deliveredThrough: positions[token], s) }
        }
    }

    /// Unregisters a user's devices: those registered with one session (by its hash), or all of them (sign-out).
    public func removeAPNsDevices(user: String, madeWith session: String?) throws(StratusError) {
        try deleteUserRows(of: "apns_devices", user: user, madeWith: session)
        apnsDevicePresence.withLock { $0 = nil }
    }

    public func removeAPNsDevice(token: String) throws(StratusError) {
        try write { s, _ in try APNsDeviceRows.remove(token.lowercased(), s) } as Void
        apnsDevicePresence.withLock { $0 = nil }
    }

    /// Records pushes' outcomes: one row per device and notification, updated by each retry; the oldest rows go
    /// beyond what the console shows.
    public func recordAPNsDeliveries(_ deliveries: [APNsDelivery]) throws(StratusError) {
        guard !deliveries.isEmpty else { return }
        try write { s, _ in
            for d in deliveries { try APNsDeliveryRows.record(d, s) }
            try APNsDeliveryRows.trim(keep: Int64(Self.keptAPNsDeliveries), s)
        }
    }

    /// The newest pushes first.
    public func apnsDeliveries(limit: Int = 200) throws(StratusError) -> [APNsDelivery] {
        try read { s, _ in try APNsDeliveryRows.newest(limit: limit, s) }
    }
}
