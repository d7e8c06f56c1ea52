import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// CloudKit JS's web courier: `tokens/create` hands out a URL that the browser GETs in a loop. Each GET answers at
/// once with the oldest notification this token has not been answered yet (one per response, the
/// `{"aps", "ck"}` JSON), or holds up to `courierHold` and answers an empty body. Answered is delivered: the
/// token remembers how far it got, so a new GET never repeats one, and a crash before the answer loses nothing.
extension CloudKitAPI {
    func registerCourierRoutes(_ router: inout Router) {
        let api = self
        router.add(.get, HandedOutPaths.webCourierRoute) { req in try await api.courierPoll(req) }
        router.add(.options, HandedOutPaths.webCourierRoute) { req in await api.courierPreflight(req) }
    }

    func courierPoll(_ req: HTTPRequest) async throws -> HTTPResponse {
        // The courier URL is its own credential (it carries no API token): only the route and the budgets are shared.
        let (container, environment) = try target(req)
        let token = req.parameters["token"] ?? ""
        let api = self
        let deadline = ContinuousClock.now + courierHold
        let env = try await blocking.run { try api.store.environment(container, environment) }
        let unknown = StratusError(.notFound, "unknown web courier token: ask tokens/create for a new one")
        guard let owner = try await blocking.run({ try env.notifications.courierToken(token)?.user }) else { throw unknown }
        try limits.admit(user: "\(container.rawValue)/\(owner)")
        // The slot counts this poll among the user's listeners until it answers.
        let slot = try listeners.admit(env.notifications.bellKey(owner))
        defer { withExtendedLifetime(slot) {} }
        while true {
            // The token is checked on every pass: one signed out or expired while the poll waits answers nothing more.
            let found: (user: String, rung: UInt64, next: StoredNotification?)? = try await blocking.run {
                guard let t = try env.notifications.courierToken(token) else { return nil }
                let rung = env.notifications.bell.rings(env.notifications.bellKey(t.user))
                let page = try env.notifications.notificationPage(for: t.user, after: t.deliveredThrough, limit: 1,
                                                                  skippingExpired: true)
                // Answered, or read past other users' batches: either way the token goes on from there.
                try env.notifications.courierDelivered(token, through: page.through)
                return (t.user, rung, page.notifications.first)
            }
            guard let found else { throw unknown }
            if let n = found.next {
                return await courierCORS(HTTPResponse.json(Data(n.payload.utf8)), req, container, environment)
            }
            let left = deadline - ContinuousClock.now
            if left <= .zero || env.notifications.bell.isClosed {
                var empty = HTTPResponse(status: .ok)
                empty.headers["content-type"] = "application/json"
                return await courierCORS(empty, req, container, environment)
            }
            // Until a commit for this user, a sign-out (which rings too), the server's stop or the deadline.
            await env.notifications.bell.wait(env.notifications.bellKey(found.user), since: found.rung, timeout: left)
        }
    }

    func courierPreflight(_ req: HTTPRequest) async -> HTTPResponse {
        guard let container = try? ContainerID(req.parameters["container"] ?? ""), let environment = ContainerEnvironment(rawValue: req.parameters["environment"] ?? "") else {
            return HTTPResponse(status: .notFound)
        }
        var r = await courierCORS(HTTPResponse(status: .noContent), req, container, environment)
        if r.headers["access-control-allow-origin"] == nil { r.status = .forbidden } else { r.headers["access-control-allow-methods"] = "GET, OPTIONS" }
        return r
    }

    /// CORS on the courier follows the container environment's API-token origins (the courier URL carries no API
    /// token).
    func courierCORS(_ response: HTTPResponse, _ req: HTTPRequest, _ container: ContainerID,
                     _ environment: ContainerEnvironment) async -> HTTPResponse {
        var r = response
        guard let origin = req.headers["origin"] else { return r }
        r.headers["vary"] = "Origin"
        let store = self.store
        let tokens = (try? await blocking.run { try store.credentials.apiTokens(container: container,
                environment: environment) }) ?? []
        if tokens.contains(where: { $0.allowsBrowser(origin: origin) }) { r.headers["access-control-allow-origin"] = origin }
        return r
    }
}
