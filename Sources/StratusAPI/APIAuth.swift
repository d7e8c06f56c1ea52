import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Who a request comes from, as established from its credentials.
struct APIAuth: Sendable {
    var token: APIToken
    var caller: Caller
    /// The web auth token the request carried, to hand back (or a fresh one) in the rotation header.
    var webAuthToken, rotatedToken: String?
    /// When the web auth token stops signing the user in (milliseconds), for listeners that outlive the request.
    var expiresAt: Int64?
    /// The sign-in the web auth token belongs to (its family, see `WebAuthSession`): what the request makes for the
    /// session (a courier token, a device) is bound to it.
    var session: String?
    /// Signed with a server-to-server key: the public database only, as the key's user.
    var serverToServer = false

    var userRecordName: String? { caller.userRecordName }
}

extension CloudKitAPI {
    /// API token (query `ckAPIToken`) for the container environment, then optionally a user (`ckWebAuthToken`,
    /// or `ckSession` as CloudKit JS 1.x names it). A bad API token is AUTHENTICATION_FAILED; a bad or expired
    /// web auth token is AUTHENTICATION_REQUIRED with where to sign in again.
    /// `opened`: the container environment, when the caller has it open already.
    func authenticate(_ req: HTTPRequest, container: ContainerID, environment: ContainerEnvironment,
                      in opened: EnvironmentStore? = nil) throws(StratusError) -> APIAuth {
        func env() throws(StratusError) -> EnvironmentStore {
            if let opened { return opened }
            return try store.environment(container, environment)
        }
        func param(_ n: String) -> String? { req.query(n) }
        if req.headers["x-apple-cloudkit-request-keyid"] != nil {
            let key = try serverToServer.verify(req, store: store, container: container, environment: environment)
            let roles = try env().schema.roles(of: key.userRecordName)
            let token = APIToken(id: 0, container: container, environment: environment, name: "server-to-server key",
                                 allowedOrigins: [], createdAt: key.createdAt, revoked: false)
            return APIAuth(token: token, caller: Caller(userRecordName: key.userRecordName, roles: roles),
                           serverToServer: true)
        }
        guard let secret = param("ckAPIToken"), !secret.isEmpty else {
            throw .authenticationFailed("ckAPIToken is missing: create an API token for this container environment")
        }
        guard let token = try store.credentials.authenticateAPIToken(secret) else { throw .authenticationFailed("unknown or revoked API token") }
        guard token.container == container, token.environment == environment else {
            throw .authenticationFailed("this API token belongs to another container or environment")
        }
        guard token.allows(origin: req.headers["origin"]) else { throw .authenticationFailed("this API token does not allow the origin \(req.headers["origin"] ?? "")") }
        var auth = APIAuth(token: token, caller: .anonymous, webAuthToken: nil, rotatedToken: nil)
        // Clients encode + / = in the token; one that did not had its + read as a space.
        if let web = (param("ckWebAuthToken") ?? param("ckSession")).map(Self.plusRestored), !web.isEmpty {
            guard let signedIn = try store.accounts.authenticateWebAuthToken(web, container: container,
                    environment: environment) else {
                var e = StratusError.authenticationRequired("the web auth token is unknown or expired: sign in again")
                e.redirectURL = signInURL(req, container: container, environment: environment)
                throw e
            }
            let user = signedIn.user
            let roles = try env().schema.roles(of: user)
            auth.caller = Caller(userRecordName: user, roles: roles)
            auth.webAuthToken = web
            auth.expiresAt = signedIn.expiresAt
            auth.session = signedIn.family
            // Rotation: past half its life, a token names its successor, the same one to every request; the old one
            // stays valid until it expires, and signing out with either ends both.
            let remaining = signedIn.expiresAt - WallClock.nowMillis()
            let lifetime = remaining > AccountStore.shortSession ? AccountStore.longSession : AccountStore.shortSession
            if remaining < lifetime / 2 {
                auth.rotatedToken = try store.accounts.rotateWebAuthToken(web, container: container,
                        environment: environment, lifetime: lifetime)
            }
        }
        return auth
    }

    /// A web auth token whose `+` a client left unencoded (read as a space) with its `+` back; most tokens need
    /// nothing, and are returned without a copy.
    static func plusRestored(_ token: String) -> String {
        token.utf8.contains(UInt8(ascii: " ")) ? String(decoding: token.utf8.map { $0 == UInt8(ascii: " ") ? UInt8(ascii: "+") : $0 }, as: UTF8.self) : token
    }

    func requireUser(_ auth: APIAuth, _ req: HTTPRequest, container: ContainerID,
                     environment: ContainerEnvironment) throws(StratusError) -> String {
        if let u = auth.userRecordName { return u }
        var e = StratusError.authenticationRequired("this request needs a signed-in user")
        e.redirectURL = signInURL(req, container: container, environment: environment)
        throw e
    }

    /// The sign-in page for this container environment; a browser caller's origin rides along so the token can be
    /// posted back to it.
    func signInURL(_ req: HTTPRequest, container: ContainerID, environment: ContainerEnvironment) -> String {
        let origin = req.headers["origin"].map { "?origin=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
        return "\(req.baseURL)/auth/1/\(container.rawValue)/\(environment.rawValue)/signin" + origin
    }
}
