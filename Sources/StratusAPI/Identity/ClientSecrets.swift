import Crypto
import Foundation
import StratusJSON
import StratusModel
import Synchronization

/// The client secret a web sign-in sends to its provider's token endpoint: the operator's fixed one, or for Apple
/// one Stratus makes with the operator's key — an ES256 JWT with header `kid` = the key ID and claims `iss` = the
/// team ID, `sub` = the services ID (the web client), `aud` = `https://appleid.apple.com`, `iat`, and `exp` at most
/// six months ahead (Apple's limit). Each is kept and used until a day before it expires, then made again, so a
/// restart or a key change makes a new one and no sign-in ever sends one about to expire.
final class ClientSecrets: Sendable {
    /// How long a made secret is good for: 180 days, under Apple's six months (15,777,000 s).
    static let lifetime: Int64 = 180 * 24 * 3600
    /// Made again when less than this is left.
    static let renewal: Int64 = 24 * 3600

    private struct Made { let jwt: String; let expiresAt: Int64 }
    private let made = Mutex<[String: Made]>([:])

    /// The secret to send for `client` (the web client ID: Apple's services ID), at `now` (seconds since 1970).
    func value(_ secret: WebClientSecret, client: String,
               now: Int64 = Int64(Date().timeIntervalSince1970)) throws(StratusError) -> String {
        switch secret {
        case .fixed(let fixed): return fixed
        case .apple(let key):
            let named = "\(key.teamID)\u{0}\(key.keyID)\u{0}\(client)\u{0}\(key.privateKeyPEM)"
            let id = Data(SHA256.hash(data: Data(named.utf8))).base64EncodedString()
            if let kept = made.withLock({ $0[id] }), kept.expiresAt - now > Self.renewal { return kept.jwt }
            let jwt = try Self.appleJWT(key, client: client, now: now)
            made.withLock { $0[id] = Made(jwt: jwt, expiresAt: now + Self.lifetime) }
            return jwt
        }
    }

    static func appleJWT(_ key: AppleSigningKey, client: String, now: Int64) throws(StratusError) -> String {
        guard let signer = try? P256.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM) else {
            throw StratusError(.internalError, "the provider's Apple key is not a P-256 private key")
        }
        let header = JSON.object(["alg": "ES256", "kid": .string(key.keyID)])
        let claims = JSON.object(["iss": .string(key.teamID), "sub": .string(client),
                                  "aud": .string(IdentityProvider.appleIssuer), "iat": .int(now),
                                  "exp": .int(now + lifetime)])
        let signed = [header, claims].map { IdentityKey.base64URLEncoded(Data($0.serialized.utf8)) }
            .joined(separator: ".")
        guard let signature = try? signer.signature(for: Data(signed.utf8)) else {
            throw StratusError(.internalError, "the Apple client secret could not be signed")
        }
        return signed + "." + IdentityKey.base64URLEncoded(signature.rawRepresentation)
    }
}
