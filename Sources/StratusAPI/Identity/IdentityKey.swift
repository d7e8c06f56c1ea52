import Crypto
import CryptoExtras
import Foundation
import StratusJSON

/// One key of an OpenID provider's published set (a JWK of its `jwks_uri`): an RSA key (`kty` RSA, `n`, `e`) for
/// RS256 or a P-256 key (`kty` EC, `crv` P-256, `x`, `y`) for ES256. Other kinds are not kept: a token signed with
/// one is refused for want of its key.
package struct IdentityKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
    }

    let keyID: String?
    let material: Material

    /// The algorithm a token signed with this key must name: a key is never used with another (a public RSA key
    /// taken for an HMAC secret is the classic confusion).
    var algorithm: String {
        switch material {
        case .rsa: "RS256"
        case .p256: "ES256"
        }
    }

    /// The key of one JWK; nil for a key this server does not verify with (another type or curve, a key for
    /// encryption only, malformed parts, an RSA modulus under 2048 bits).
    init?(jwk: JSON) {
        guard jwk["use"]?.string.map({ $0 == "sig" }) ?? true else { return nil }
        keyID = jwk["kid"]?.string
        switch jwk["kty"]?.string {
        case "RSA":
            guard let n = jwk["n"]?.string.flatMap(Self.base64URL), let e = jwk["e"]?.string.flatMap(Self.base64URL),
                  let key = try? _RSA.Signing.PublicKey(n: n, e: e), key.keySizeInBits >= 2048 else { return nil }
            material = .rsa(key)
        case "EC":
            guard jwk["crv"]?.string == "P-256", let x = jwk["x"]?.string.flatMap(Self.base64URL), let y = jwk["y"]?.string.flatMap(Self.base64URL),
                  x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
            material = .p256(key)
        default:
            return nil
        }
    }

    /// A passkey's public key from its COSE key (RFC 9053): EC2 on P-256 for ES256 (`alg` -7), or RSA of at least
    /// 2048 bits for RS256 (`alg` -257); nil for any other.
    init?(cose key: CBOR) {
        keyID = nil
        switch (key[1]?.int, key[3]?.int) {
        case (2, -7):
            guard key[-1]?.int == 1, let x = key[-2]?.data, let y = key[-3]?.data, x.count == 32, y.count == 32,
                  let k = try? P256.Signing.PublicKey(rawRepresentation: x + y) else { return nil }
            material = .p256(k)
        case (3, -257):
            guard let n = key[-1]?.data, let e = key[-2]?.data, let k = try? _RSA.Signing.PublicKey(n: n, e: e),
                  k.keySizeInBits >= 2048 else { return nil }
            material = .rsa(k)
        default:
            return nil
        }
    }

    /// Whether `signature` signs `input` as WebAuthn signs: ES256 signatures DER-encoded, RS256 PKCS #1 v1.5.
    func verifiesAssertion(_ signature: Data, of input: Data) -> Bool {
        switch material {
        case .rsa: return verifies(signature, of: input)
        case .p256(let key):
            guard let s = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(s, for: SHA256.hash(data: input))
        }
    }

    /// The keys of a JWK set document (`{"keys": [...]}`), those this server verifies with.
    static func set(_ document: JSON) -> [IdentityKey] {
        (document["keys"]?.array ?? []).prefix(64).compactMap(IdentityKey.init(jwk:))
    }

    /// Whether `signature` signs `input` under this key, by its algorithm (RS256: PKCS #1 v1.5 with SHA-256;
    /// ES256: the raw 64-byte r‖s of JWS).
    func verifies(_ signature: Data, of input: Data) -> Bool {
        switch material {
        case .rsa(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                        for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        case .p256(let key):
            guard let s = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(s, for: SHA256.hash(data: input))
        }
    }

    /// Base64url without padding (JWS, JWK), refusing anything else.
    /// `d` in base64url without padding (a JWT's, PKCE's).
    package static func base64URLEncoded(_ d: Data) -> String {
        d.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    package static func base64URL(_ s: String) -> Data? {
        guard s.utf8.count <= 16_384, s.utf8.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F })
        else { return nil }
        var b = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b.utf8.count % 4 != 0 { b += "=" }
        return Data(base64Encoded: b)
    }
}
