import Foundation
import StratusHTTP
import StratusModel
import StratusStore

extension CloudKitAPI {
    /// `/device/1/{container}/{environment}/tokens/create|register`: CloudKit JS asks for an APNs token and a web
    /// courier URL before it can receive notifications. The token belongs to the signed-in user who asked for it;
    /// the courier URL long-polls that user's notifications (see CloudKitAPI+Courier). An app on an Apple device
    /// registers the device token Apple gave it instead, and is pushed to through APNs (see APNsDeliverer).
    func deviceTokens(_ req: HTTPRequest) async throws -> HTTPResponse {
        let (container, environment) = try target(req)
        let body = try JSON.parse(req.body)
        let api = self
        return try await blocking.run {
            let ctx = try api.authorize(req, container, environment, body: body, audience: .signedInUser)
            let (auth, user) = (ctx.auth, ctx.user)
            switch req.parameters["action"] {
            case "create":
                guard let env = body["apnsEnvironment"]?.string, ["DEVELOPMENT",
                                                                  "PRODUCTION"].contains(env.uppercased()) else {
                    throw StratusError.badRequest("tokens/create needs apnsEnvironment DEVELOPMENT or PRODUCTION")
                }
                let token = Secrets.hex(Secrets.randomBytes(32))
                // The courier URL is a credential: it lasts as long as the session that asked for it.
                try ctx.store.notifications.createCourierToken(
                    token, user: user, expiresAt: auth.expiresAt ?? WallClock.nowMillis() + AccountStore.shortSession, madeWith: auth.session)
                return api.json { w in
                    w.beginObject()
                    w.field("apnsEnvironment", env.uppercased())
                    w.field("apnsToken", token)
                    w.field("webcourierURL", api.baseURL(req) + HandedOutPaths.webCourier(container, environment,
                            token: token))
                    w.endObject()
                }
            case "register":
                guard let token = try body.string("apnsToken"), !token.isEmpty else { throw StratusError.badRequest("tokens/register needs an apnsToken") }
                let env = ctx.store
                // A token tokens/create made (CloudKit JS's web courier) is registered already; any other is the
                // device token Apple gave an app, pushed to through APNs from now on.
                if let courier = try env.notifications.courierToken(token) {
                    guard courier.user == user else { throw StratusError(.notFound,
                            "unknown apnsToken: ask tokens/create for one") }
                } else {
                    let apnsEnvironment = try body.string("apnsEnvironment").map { e throws(StratusError) -> APNsEnvironment in
                        guard let parsed = APNsEnvironment(parsing: e) else { throw .badRequest("apnsEnvironment is DEVELOPMENT or PRODUCTION") }
                        return parsed
                    } ?? (environment == .production ? .production : .development)
                    let store = api.store
                    try env.apns.registerAPNsDevice(token: token, user: user, apnsEnvironment: apnsEnvironment,
                                                    session: auth.session,
                                               sessionIsLive: { family throws(StratusError) in try store.accounts.webSessionIsLive(family: family) })
                }
                return api.json { w in w.beginObject(); w.endObject() }
            default:
                throw StratusError(.notFound, "unknown tokens endpoint")
            }
        }
    }
}
