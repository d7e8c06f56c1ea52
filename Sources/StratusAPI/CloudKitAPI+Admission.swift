import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// What a CloudKit API request with a large body (over `HTTPServerConfig.admissionThreshold`) must show before
/// the body is read: a live API token of the container environment it names, or a known server-to-server key of
/// it; and for a body over `signedInBodyThreshold`, a signed-in user too. Anyone else is refused with the body
/// unread, so a stranger cannot make the server buffer 16 MB only to be told no.
extension CloudKitAPI {
    /// Bodies up to this size need only the API token; larger ones a web auth token or a server-to-server key.
    static let signedInBodyThreshold = 1 << 20

    /// What it throws is refused by the CloudKit group's owner, through its CORS middleware, with the body unread.
    func admitBody(_ req: HTTPRequest) async throws -> BodyAdmission {
        let large = Int(req.headers["content-length"] ?? "").map { $0 > Self.signedInBodyThreshold } ?? true
        let api = self
        let container = try ContainerID(req.parameters["container"] ?? "")
        let environment = try ContainerEnvironment(parsing: req.parameters["environment"] ?? "")
        let credential = try await blocking.run { () throws -> String in
            if let keyID = req.headers["x-apple-cloudkit-request-keyid"] {
                // The signature covers the body's hash, so it is verified after the body is read; everything the
                // head carries is checked now: all three headers, a known key of this environment, a fresh date.
                guard let dateText = req.headers["x-apple-cloudkit-request-iso8601date"],
                      let signature = req.headers["x-apple-cloudkit-request-signaturev1"], !signature.isEmpty else {
                    throw StratusError.authenticationFailed("a server-to-server request needs KeyID, ISO8601Date and SignatureV1 headers")
                }
                guard let key = try api.store.credentials.serverKey(id: keyID), key.container == container, key.environment == environment else {
                    throw StratusError.authenticationFailed("unknown or revoked server-to-server key")
                }
                guard let date = ServerToServerAuth.parseDate(dateText), abs(WallClock.nowMillis() - date) <= ServerToServerAuth.window else {
                    throw StratusError.authenticationFailed("the request date is missing, malformed or more than 10 minutes from the server's clock")
                }
                return "server-to-server key \(keyID)"
            }
            guard let secret = req.query("ckAPIToken"), let token = try api.store.credentials.authenticateAPIToken(secret),
                  token.container == container, token.environment == environment else {
                throw StratusError.authenticationFailed("ckAPIToken is missing, unknown or revoked, or belongs to another container environment")
            }
            let web = (req.query("ckWebAuthToken") ?? req.query("ckSession")).map(Self.plusRestored)
            if let web, let user = try api.store.accounts.authenticateWebAuthToken(web, container: container,
                    environment: environment)?.user {
                return "user \(container.rawValue)/\(environment.rawValue)/\(user)"
            }
            guard !large else {
                var e = StratusError.authenticationRequired("a request body over \(Self.signedInBodyThreshold >> 20) MB needs a signed-in user")
                e.redirectURL = api.signInURL(req, container: container, environment: environment)
                throw e
            }
            return "API token \(token.id)"
        }
        return .admitted(credential: credential)
    }
}
