import Crypto
import CryptoExtras
import Foundation
import StratusJSON

/// An OpenID provider's signing keys, made per run: an RSA key (RS256) and a P-256 key (ES256), their JWK set, and
/// tokens signed with either.
public struct IdentityKeyPair: Sendable {
    public init() {}

    public let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    public let ec = P256.Signing.PrivateKey()
    /// The key IDs, new for every pair (a rotated provider publishes new ones).
    public let rsaKID = "r-" + UUID().uuidString.prefix(8), ecKID = "e-" + UUID().uuidString.prefix(8)

    public var jwks: JSON {
        let p = try! rsa.publicKey.getKeyPrimitives()
        let raw = ec.publicKey.rawRepresentation
        return ["keys": .array([
            ["kty": "RSA", "kid": .string(rsaKID), "use": "sig", "n": .string(Self.b64(p.modulus)), "e": .string(Self.b64(p.publicExponent))],
            ["kty": "EC", "kid": .string(ecKID), "crv": "P-256", "x": .string(Self.b64(raw.prefix(32))), "y": .string(Self.b64(raw.suffix(32)))],
        ])]
    }

    /// base64url without padding, read back; nil when it is not.
    public static func unb64(_ s: String) -> Data? {
        var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        t += String(repeating: "=", count: (4 - t.count % 4) % 4)
        return Data(base64Encoded: t)
    }

    public static func b64(_ d: some DataProtocol) -> String {
        Data(d).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// `claims` as a compact JWS signed by `alg`'s key, naming `kid` (by default that key's own); `sign: false`
    /// leaves the signature empty, and an algorithm of neither key signs with nonsense.
    public func sign(_ claims: [String: JSON], alg: String = "RS256", kid: String? = nil, sign: Bool = true) -> String {
        let header: JSON = ["alg": .string(alg), "kid": .string(kid ?? (alg == "ES256" ? ecKID : rsaKID)), "typ": "JWT"]
        let input = Self.b64(Data(header.serialized.utf8)) + "." + Self.b64(Data(JSON.object(claims).serialized.utf8))
        let signature: Data = switch alg {
        case "ES256": try! ec.signature(for: Data(input.utf8)).rawRepresentation
        case "RS256": try! rsa.signature(for: SHA256.hash(data: Data(input.utf8)), padding: .insecurePKCS1v1_5).rawRepresentation
        default: Data("x".utf8)
        }
        return input + "." + (sign ? Self.b64(signature) : "")
    }
}
