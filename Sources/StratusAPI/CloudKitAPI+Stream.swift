import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Server-Sent Events: `GET /database/1/{container}/{environment}/notifications/stream`, authenticated as the API
/// is (API token and web auth token), streams the signed-in user's notifications as they are written, one event
/// each: `id:` the notification's `nid`, `data:` its `{"aps", "ck"}` JSON. Reconnecting with `Last-Event-ID` (the
/// header, or `?lastEventID=` where a client cannot set headers) replays everything after it; without one the
/// stream starts with what happens next.
///
/// A stream costs nothing while its user gets nothing: it sleeps until a commit for its user rings, its keep-alive
/// is due, its web auth token expires, its client goes (which rings it) or the server stops (which closes the bell);
/// it reads the log only when rung, and goes on from where the last read got (past other users' batches). Its
/// credentials are checked again before every delivery and keep-alive: a revoked API token, a signed-out or expired
/// user, ends the stream.
extension CloudKitAPI {
    static let streamKeepAlive: Duration = .seconds(15)

    func registerStreamRoutes(_ router: inout Router) {
        let api = self
        router.add(.get,
                   "/database/1/{container}/{environment}/notifications/stream") { req in try await api.notificationStream(req) }
    }

    func notificationStream(_ req: HTTPRequest) async throws -> HTTPResponse {
        let (container, environment) = try target(req)
        let lastEventID = req.headers["last-event-id"] ?? req.query("lastEventID")
        let api = self
        let (store, auth, start): (EnvironmentStore, APIAuth, Int64) = try await blocking.run {
            let ctx = try api.authorize(req, container, environment, audience: .signedInUser)
            let notifications = ctx.store.notifications
            let start = try lastEventID.map { try notifications.notificationPosition(nid: $0,
                    user: ctx.user) } ?? notifications.lastNotificationID(for: ctx.user)
            return (ctx.store, ctx.auth, start)
        }
        let user = auth.userRecordName ?? ""
        let key = store.notifications.bellKey(user)
        let slot = try listeners.admit(key)
        var response = HTTPResponse(status: .ok)
        response.headers["content-type"] = "text/event-stream; charset=utf-8"
        response.headers["cache-control"] = "no-cache"
        response.headers["x-accel-buffering"] = "no"  // nginx: pass events through as they come
        response.stream = { out in
            // The slot counts this listener until the stream ends.
            defer { withExtendedLifetime(slot) {} }
            await api.streamNotifications(to: out, req, env: store, auth: auth, from: start)
        }
        return response
    }

    /// Sends `auth`'s user their notifications after `start` as server-sent events, then each new one as its
    /// commit rings the bell, until the client leaves, the server drains or the session ends; a keep-alive comment
    /// every `streamKeepAlive` of quiet, each time after checking the session still signs the user in.
    private func streamNotifications(to out: ResponseStream, _ req: HTTPRequest, env store: EnvironmentStore,
                                     auth: APIAuth, from start: Int64) async {
        let api = self, blocking = self.blocking
        let (container, environment) = (store.container, store.environment)
        let user = auth.userRecordName ?? ""
        let key = store.notifications.bellKey(user)
        var position = start
        var rung = store.notifications.bell.rings(key)
        var quietSince = ContinuousClock.now
        func authorized() async -> Bool {
            let again = try? await blocking.run { try api.authenticate(req, container: container,
                                                                       environment: environment) }
            return again?.userRecordName == user
        }
        /// Reads on from `position` and sends what is there; false once the stream should end.
        func deliver() async -> Bool {
            while true {
                let after = position
                guard let page = try? await blocking.run({ try store.notifications.notificationPage(for: user,
                        after: after, limit: 100) }) else { return false }
                if !page.notifications.isEmpty {
                    guard await authorized() else { return false }
                    for n in page.notifications {
                        guard await out.write(Data("id: \(n.notificationID)\nevent: notification\ndata: \(n.payload)\n\n".utf8)) else { return false }
                    }
                    quietSince = ContinuousClock.now
                }
                position = page.through
                if page.notifications.count < 100 { return true }
            }
        }
        // A client that goes rings its user's key, so that this stream wakes and ends now.
        out.onClose { store.notifications.bell.ring([key]) }
        guard await out.write(Data(": stream of notifications\n\n".utf8)), await deliver() else { return }
        while !out.isDraining() && !store.notifications.bell.isClosed && out.isOpen() {
            var timeout = Self.streamKeepAlive - (ContinuousClock.now - quietSince)
            if let expires = auth.expiresAt { timeout = min(timeout, .milliseconds(max(0,
                    expires - WallClock.nowMillis()))) }
            await store.notifications.bell.wait(key, since: rung, timeout: max(timeout, .milliseconds(10)))
            if let expires = auth.expiresAt, expires <= WallClock.nowMillis() { return }
            guard out.isOpen() else { return }
            let now = store.notifications.bell.rings(key)
            if now != rung {
                rung = now
                guard await deliver() else { return }
            } else if ContinuousClock.now - quietSince >= Self.streamKeepAlive {
                guard await authorized(), await out.write(Data(": keep-alive\n\n".utf8)) else { return }
                quietSince = ContinuousClock.now
            }
        }
    }
}
