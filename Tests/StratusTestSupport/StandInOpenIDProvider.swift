import Crypto
import Foundation
import StratusHTTP
import StratusJSON
import Synchronization

/// An OpenID provider on a real socket on loopback, as Sign in with Apple or Google is on the internet: its
/// discovery document (`/.well-known/openid-configuration`), its key set (`/jwks`), which `rotate()` replaces with
/// new keys and key IDs, and the authorization-code flow with PKCE: `/authorize` signs in `webUser` at once (the
/// user who consents) and sends the browser back with a code — by redirect, or with `response_mode=form_post` by an
/// auto-submitted cross-site form, as Apple does — and `/token` trades the code, once, for an identity token,
/// checking the client's secret, the redirect URI and the PKCE verifier. Counts how often its keys are fetched, and
/// mints identity tokens for its users.
public final class StandInOpenIDProvider: Sendable {
    public let server: HTTPServer
    /// What the web flow hands out: its codes, each once.
    struct Grant: Sendable {
        let clientID, redirectURI, challenge, nonce, subject: String
        let email: String?
    }
    /// The published keys and how often they were fetched, the codes, and who signs in at `/authorize`, shared
    /// with the server's handlers.
    private final class Published: Sendable {
        let state = Mutex<(keys: IdentityKeyPair, keyFetches: Int)>((IdentityKeyPair(), 0))
        let grants = Mutex<[String: Grant]>([:])
        let web = Mutex<(subject: String, email: String?, clientSecret: String, tokenRequests: Int, formPost: Bool)>(("web.user", nil, "", 0, false))
        /// As Apple: the key that client secrets must be signed with, instead of a fixed one.
        let apple = Mutex<AppleClient?>(nil)
    }

    /// What Apple checks of a client secret: an ES256 JWT of this key, team and key ID.
    public struct AppleClient: Sendable {
        public let key: P256.Signing.PublicKey
        public let teamID, keyID: String
        public init(key: P256.Signing.PublicKey, teamID: String, keyID: String) {
            (self.key, self.teamID, self.keyID) = (key, teamID, keyID)
        }

        /// Whether `jwt` is a client secret Apple would take for `client` at `now`.
        public func accepts(_ jwt: String, client: String, now: Int64) -> Bool {
            let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let h = IdentityKeyPair.unb64(parts[0]), let c = IdentityKeyPair.unb64(parts[1]),
                  let sig = IdentityKeyPair.unb64(parts[2]), let header = try? JSONParser.parse(h), let claims = try? JSONParser.parse(c),
                  let signature = try? P256.Signing.ECDSASignature(rawRepresentation: sig),
                  key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)),
                  header["alg"]?.string == "ES256", header["kid"]?.string == keyID,
                  claims["iss"]?.string == teamID, claims["sub"]?.string == client,
                  claims["aud"]?.string == "https://appleid.apple.com",
                  let iat = claims["iat"]?.int64, let exp = claims["exp"]?.int64 else { return false }
            return iat <= now + 60 && exp > now && exp - iat <= 15_777_000
        }
    }

    /// Client secrets are Apple's kind from now on: JWTs that `client` must sign.
    public func expectAppleClientSecrets(_ client: AppleClient) { published.apple.withLock { $0 = client } }
    private let published: Published
    /// The host its issuer names (`localhost` makes it another site than a server on 127.0.0.1).
    public let host: String

    public var issuer: String { "http://\(host):\(server.port)" }
    public var keyFetches: Int { published.state.withLock { $0.keyFetches } }
    public var keys: IdentityKeyPair { published.state.withLock { $0.keys } }

    public init(host: String = "127.0.0.1") async throws {
        self.host = host
        var router = Router()
        let published = Published()
        self.published = published
        // The issuer is known once the port is: the handlers read it from the request's Host.
        router.add(.get, "/.well-known/openid-configuration") { req in
            let issuer = "http://\(req.headers["host"] ?? "")"
            let doc: JSON = ["issuer": .string(issuer), "jwks_uri": .string(issuer + "/jwks"),
                             "authorization_endpoint": .string(issuer + "/authorize"), "token_endpoint": .string(issuer + "/token"),
                             "id_token_signing_alg_values_supported": ["RS256", "ES256"]]
            return .json(Data(doc.serialized.utf8))
        }
        router.add(.get, "/jwks") { _ in
            let jwks = published.state.withLock { s -> JSON in
                s.keyFetches += 1
                return s.keys.jwks
            }
            return .json(Data(jwks.serialized.utf8))
        }
        router.add(.get, "/authorize") { req in
            let (subject, email, formPost) = published.web.withLock { ($0.subject, $0.email, $0.formPost) }
            guard req.query("response_type") == "code", let client = req.query("client_id"),
                  let redirect = req.query("redirect_uri"), let challenge = req.query("code_challenge"),
                  req.query("code_challenge_method") == "S256", let nonce = req.query("nonce"),
                  let state = req.query("state") else { return HTTPResponse.text("bad authorization request", status: .badRequest) }
            let code = UUID().uuidString
            published.grants.withLock { $0[code] = Grant(clientID: client, redirectURI: redirect, challenge: challenge, nonce: nonce,
                                                         subject: subject, email: email) }
            if req.query("response_mode") == "form_post" || formPost {
                let user = #"{"name":{"firstName":"Web","lastName":"User"}}"#
                let page = """
                    <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stand-in provider</title></head><body>
                    <form id="f" method="post" action="\(redirect)"><input type="hidden" name="code" value="\(code)">
                    <input type="hidden" name="state" value="\(state)"><input type="hidden" name="user" value='\(user)'></form>
                    <script>document.getElementById("f").submit()</script></body></html>
                    """
                var r = HTTPResponse.text(page)
                r.headers["content-type"] = "text/html; charset=utf-8"
                return r
            }
            let sep = redirect.contains("?") ? "&" : "?"
            let quoted = state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return .redirect(to: redirect + sep + "code=\(code)&state=\(quoted)", status: .found)
        }
        router.add(.post, "/token") { req in
            let form = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) },
                                  uniquingKeysWith: { a, _ in a })
            let secret = published.web.withLock { w -> String in w.tokenRequests += 1; return w.clientSecret }
            let grant = published.grants.withLock { $0.removeValue(forKey: form["code"] ?? "") }
            let challenge = IdentityKeyPair.b64(Data(SHA256.hash(data: Data((form["code_verifier"] ?? "").utf8))))
            let now = Int64(Date().timeIntervalSince1970)
            let sent = form["client_secret"] ?? ""
            let proven = published.apple.withLock { $0 }.map { $0.accepts(sent, client: form["client_id"] ?? "", now: now) }
                ?? (sent == secret)
            guard form["grant_type"] == "authorization_code", let grant, form["client_id"] == grant.clientID,
                  proven, form["redirect_uri"] == grant.redirectURI, challenge == grant.challenge else {
                return HTTPResponse(status: .badRequest, body: Data(#"{"error":"invalid_grant"}"#.utf8))
            }
            let issuer = "http://\(req.headers["host"] ?? "")"
            var claims: [String: JSON] = ["iss": .string(issuer), "aud": .string(grant.clientID), "sub": .string(grant.subject),
                                          "exp": .int(now + 600), "iat": .int(now), "nonce": .string(grant.nonce)]
            if let email = grant.email {
                claims["email"] = .string(email)
                claims["email_verified"] = true
            }
            let idToken = published.state.withLock { $0.keys }.sign(claims)
            return .json(Data(JSON.object(["access_token": "at", "token_type": "Bearer", "id_token": .string(idToken)]).serialized.utf8))
        }
        server = HTTPServer(config: HTTPServerConfig(port: 0), router: router)
        try await server.start()
    }

    /// Who signs in at `/authorize` next, the client secret `/token` asks of the client, and whether the browser
    /// is sent back by a cross-site form POST whatever the request asked (as Apple does).
    public func webUser(subject: String, email: String? = nil, clientSecret: String, formPost: Bool = false) {
        published.web.withLock { $0 = (subject, email, clientSecret, $0.tokenRequests, formPost) }
    }

    /// How many times `/token` was asked.
    public var tokenRequests: Int { published.web.withLock { $0.tokenRequests } }

    /// New keys, with new key IDs, replace the published ones.
    public func rotate() { published.state.withLock { $0.keys = IdentityKeyPair() } }

    /// The lowercase hex SHA-256 of a raw nonce: what a native app gives the provider.
    public static func hashed(_ nonce: String) -> String {
        SHA256.hash(data: Data(nonce.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// An identity token for `subject`, for client `audience`, carrying the hash of `nonce`, valid for ten minutes;
    /// `changes` override or (nil) remove claims.
    public func token(subject: String, audience: String = "com.example.app", nonce: String, email: String? = nil,
               alg: String = "RS256", keys: IdentityKeyPair? = nil, _ changes: [String: JSON?] = [:]) -> String {
        let now = Int64(Date().timeIntervalSince1970)
        var claims: [String: JSON] = ["iss": .string(issuer), "aud": .string(audience), "sub": .string(subject),
                                      "exp": .int(now + 600), "iat": .int(now), "nonce": .string(Self.hashed(nonce))]
        if let email {
            claims["email"] = .string(email)
            claims["email_verified"] = "true"
        }
        for (k, v) in changes { claims[k] = v }
        return (keys ?? self.keys).sign(claims, alg: alg)
    }

    public func stop() async { await server.stop() }
}
