import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Server-Sent Events: `GET /database/1/{container}/{environment}/notifications/stream`, authenticated as the API
/// is (API token and web auth token), streams the signed-in user's notifications as they are written, one event
/// each: `id:` the notification's `nid`, `data:` its `{"aps", "ck"}` JSON. Reconnecting with `Last-Event-ID` (the
/// header, or `?lastEventID=` where a client cannot set headers) replays everything after it; without one the
/// stream starts with what happens next.
extension CloudKitAPI {
    /// How often a quiet stream checks that the server is not draining (a commit for its user wakes it at once).
    static let streamPoll: Duration = .seconds(1)
    static let streamKeepAlive: Duration = .seconds(15)

    func registerStreamRoutes(_ router: inout Router) {
        let api = self
        router.add(.get, "/database/1/{container}/{environment}/notifications/stream") { req in await api.notificationStream(req) }
    }

    func notificationStream(_ req: HTTPRequest) async -> HTTPResponse {
        do {
            try limits.admit(address: req.clientAddress)
            let container = try ContainerID(req.parameters["container"] ?? "")
            let environment = try Environment(parsing: req.parameters["environment"] ?? "")
            let lastEventID = req.headers["last-event-id"] ?? req.query("lastEventID")
            let api = self
            let (store, user, start): (EnvironmentStore, String, Int64) = try await blocking.run {
                let env = try api.store.environment(container, environment)
                let auth = try api.authenticate(req, container: container, environment: environment)
                let user = try api.requireUser(auth, req, container: container, environment: environment)
                let start = try lastEventID.map { try env.notificationPosition(nid: $0, user: user) } ?? env.lastNotificationID()
                return (env, user, start)
            }
            var response = HTTPResponse(status: .ok)
            response.headers["content-type"] = "text/event-stream; charset=utf-8"
            response.headers["cache-control"] = "no-cache"
            response.headers["x-accel-buffering"] = "no"  // nginx: pass events through as they come
            let blocking = self.blocking
            response.stream = { out in
                var position = start
                var quietSince = ContinuousClock.now
                guard await out.write(Data(": stream of notifications\n\n".utf8)) else { return }
                while !out.isDraining() && !store.bell.isClosed {
                    let rung = store.bell.rings(store.bellKey(user))
                    let after = position
                    let batch = (try? await blocking.run { try store.notifications(for: user, after: after, limit: 100) }) ?? []
                    for n in batch {
                        guard await out.write(Data("id: \(n.notificationID)\nevent: notification\ndata: \(n.payload)\n\n".utf8)) else { return }
                        position = n.id
                    }
                    if !batch.isEmpty { quietSince = ContinuousClock.now }
                    if ContinuousClock.now - quietSince > Self.streamKeepAlive {
                        guard await out.write(Data(": keep-alive\n\n".utf8)) else { return }
                        quietSince = ContinuousClock.now
                    }
                    if batch.count < 100 { await store.bell.wait(store.bellKey(user), since: rung, timeout: Self.streamPoll) }
                }
            }
            return await finish(response, req)
        } catch {
            return await finish(envelope(StratusError.wrapping(error)), req)
        }
    }
}
