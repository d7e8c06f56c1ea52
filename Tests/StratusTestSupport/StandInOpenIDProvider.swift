import Crypto
import Foundation
import StratusHTTP
import StratusJSON
import Synchronization

/// An OpenID provider on a real socket on loopback, as Sign in with Apple or Google is on the internet: its
/// discovery document (`/.well-known/openid-configuration`), and its key set (`/jwks`), which `rotate()` replaces
/// with new keys and key IDs. Counts how often its keys are fetched, and mints identity tokens for its users.
public final class StandInOpenIDProvider: Sendable {
    public let server: HTTPServer
    /// The published keys and how often they were fetched, shared with the server's handlers.
    private final class Published: Sendable {
        let state = Mutex<(keys: IdentityKeyPair, keyFetches: Int)>((IdentityKeyPair(), 0))
    }
    private let published: Published

    public var issuer: String { "http://127.0.0.1:\(server.port)" }
    public var keyFetches: Int { published.state.withLock { $0.keyFetches } }
    public var keys: IdentityKeyPair { published.state.withLock { $0.keys } }

    public init() async throws {
        var router = Router()
        let published = Published()
        self.published = published
        // The issuer is known once the port is: the handlers read it from the request's Host.
        router.add(.get, "/.well-known/openid-configuration") { req in
            let issuer = "http://\(req.headers["host"] ?? "")"
            let doc: JSON = ["issuer": .string(issuer), "jwks_uri": .string(issuer + "/jwks"),
                             "authorization_endpoint": .string(issuer + "/authorize"),
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
        server = HTTPServer(config: HTTPServerConfig(port: 0), router: router)
        try await server.start()
    }

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
