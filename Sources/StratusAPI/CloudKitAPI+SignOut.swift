import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// `POST /auth/1/{container}/{environment}/signout` with the session's `ckWebAuthToken` (in the query string or a
/// JSON body): the web auth token, and the web courier tokens made with it, stop working at once, and the user's
/// open notification streams end. What CloudKit JS's `signOut()` needs from a server. Answers `{}`; a token that is
/// unknown or already signed out answers the same, so the endpoint tells nothing about tokens.
extension CloudKitAPI {
    func registerSignOutRoutes(_ router: inout Router) {
        let api = self
        router.add(.post, "/auth/1/{container}/{environment}/signout",
                   bodyLimit: 16 * 1024) { req in try await api.signOut(req) }
        router.add(.options, "/auth/1/{container}/{environment}/signout") { req in await api.preflight(req) }
    }

    func signOut(_ req: HTTPRequest) async throws -> HTTPResponse {
        let (container, _) = try target(req)
        let body = req.body.isEmpty ? JSON.object([:]) : try JSON.parse(req.body).requestObject()
        let given = try body.string("ckWebAuthToken") ?? req.query("ckWebAuthToken") ?? req.query("ckSession")
        guard let token = given.map(Self.plusRestored), !token.isEmpty else {
            throw StratusError.badRequest("signout needs the session's ckWebAuthToken")
        }
        let store = self.store
        try await blocking.run {
            guard try store.containerExists(container) else { throw StratusError(.notFound,
                    "container \(container) does not exist") }
            try store.accounts.revokeWebAuthToken(token, container: container)
        }
        return json { w in w.beginObject(); w.endObject() }
    }
}
