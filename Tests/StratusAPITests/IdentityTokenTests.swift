import Crypto
import CryptoExtras
import Foundation
import Testing
@testable import StratusAPI
import StratusJSON
import StratusModel
import StratusTestSupport

/// Identity tokens from OpenID providers (Sign in with Apple, Google, an operator's own): every check a token must
/// pass, each tried with a token that fails only it. Keys are made per run, as a provider publishes them (JWKS).
@Suite struct IdentityTokenTests {
    static let issuer = "https://id.example.test"
    static let now: Int64 = 1_800_000_000_000

    /// A provider's keys (`IdentityKeyPair`) and tokens of this suite's issuer at its fixed time.
    struct Provider {
        let keys = IdentityKeyPair()
        var jwks: JSON { keys.jwks }

        static func b64(_ d: some DataProtocol) -> String { IdentityKeyPair.b64(d) }

        /// A token with `claims` over the defaults (nil removes one), signed by `alg`'s key (`kid` by default its own).
        func token(alg: String = "RS256", kid: String? = nil, _ changes: [String: JSON?] = [:], sign: Bool = true) -> String {
            var claims: [String: JSON] = ["iss": .string(IdentityTokenTests.issuer), "aud": "com.example.app", "sub": "001234.abcd",
                                          "exp": .int(IdentityTokenTests.now / 1000 + 600), "iat": .int(IdentityTokenTests.now / 1000 - 10),
                                          "email": "someone@privaterelay.appleid.com", "email_verified": "true", "is_private_email": true]
            for (k, v) in changes { claims[k] = v }
            return keys.sign(claims, alg: alg, kid: kid, sign: sign)
        }
    }

    static let expected = IdentityToken.Expectations(issuer: issuer, audiences: ["com.example.app", "com.example.web"], nonce: nil, now: now)

    static func verify(_ token: String, _ p: Provider, _ expected: IdentityToken.Expectations = expected) throws(StratusError) -> IdentityClaims {
        try IdentityToken(token).verify(keys: IdentityKey.set(p.jwks), expected)
    }

    @Test(arguments: ["RS256", "ES256"]) func aGoodTokenNamesItsUserByIssuerAndSubject(_ alg: String) throws {
        let p = Provider()
        let claims = try Self.verify(p.token(alg: alg), p)
        #expect(claims == IdentityClaims(issuer: Self.issuer, subject: "001234.abcd", email: "someone@privaterelay.appleid.com", emailVerified: true,
                                         isPrivateEmail: true, givenName: nil, familyName: nil))
    }

    @Test func anAccountWithoutAnEmailOrAVerifiedFlagStillSignsIn() throws {
        let p = Provider()
        let claims = try Self.verify(p.token(["email": nil, "email_verified": nil, "is_private_email": nil]), p)
        #expect(claims.email == nil && !claims.emailVerified && !claims.isPrivateEmail)
        #expect(try Self.verify(p.token(["email_verified": .bool(false)]), p).emailVerified == false)
    }

    @Test func audiencesMayBeAListOfWhichOneIsOurs() throws {
        let p = Provider()
        #expect(try Self.verify(p.token(["aud": .array(["other", "com.example.web"])]), p).subject == "001234.abcd")
    }

    /// Each token fails one check only, and each refusal is AUTHENTICATION_FAILED saying which.
    @Test(arguments: [
        ("alg none", "algorithm"), ("alg HS256", "algorithm"), ("unknown kid", "kid"), ("ES256 header on the RSA key", "kid"),
        ("tampered claims", "signature"), ("no signature", "JWT"), ("other issuer", "issuer"), ("other audience", "client"),
        ("expired", "expired"), ("issued in the future", "future"), ("not valid yet", "not valid yet"), ("no subject", "subject"),
        ("not a JWT", "JWT"), ("claims not an object", "JWT"),
    ]) func everyBadTokenIsRefusedForWhatIsWrongWithIt(_ bad: (String, String)) throws {
        let p = Provider()
        let token: String = switch bad.0 {
        case "alg none": p.token(alg: "none")
        case "alg HS256": p.token(alg: "HS256")
        case "unknown kid": p.token(kid: "r9")
        case "ES256 header on the RSA key": p.token(alg: "ES256", kid: p.keys.rsaKID)
        case "tampered claims": {
            let parts = p.token().split(separator: ".").map(String.init)
            let forged = Provider.b64(Data(#"{"iss":"\#(Self.issuer)","aud":"com.example.app","sub":"someone-else","exp":9999999999}"#.utf8))
            return parts[0] + "." + forged + "." + parts[2]
        }()
        case "no signature": p.token(sign: false)
        case "other issuer": p.token(["iss": "https://evil.example"])
        case "other audience": p.token(["aud": "com.example.other"])
        case "expired": p.token(["exp": .int(Self.now / 1000 - 120)])
        case "issued in the future": p.token(["iat": .int(Self.now / 1000 + 3600)])
        case "not valid yet": p.token(["nbf": .int(Self.now / 1000 + 3600)])
        case "no subject": p.token(["sub": nil])
        case "not a JWT": "not.a-jwt"
        default: Provider.b64(Data(#"{"alg":"RS256"}"#.utf8)) + "." + Provider.b64(Data("[1]".utf8)) + ".c2ln"
        }
        do {
            _ = try Self.verify(token, p)
            Issue.record("\(bad.0) was accepted")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(error.reason.contains(bad.1), "\(bad.0): \(error.reason)")
            #expect(!error.reason.contains(token.prefix(20)), "a refusal never quotes the token")
        }
    }

    /// A provider's numbers are compared without arithmetic that could overflow: the largest and smallest times
    /// neither trap nor pass a check they should fail, and a nonce is kept at most a day.
    @Test func extremeTimesNeitherTrapNorPass() throws {
        let p = Provider()
        let far = p.token(["exp": .int(Int64.max), "iat": .int(Int64.min), "nbf": .int(Int64.min)])
        #expect(try Self.verify(far, p).subject == "001234.abcd")
        #expect(try IdentityToken(far).nonceKeptUntil(Self.expected) <= Self.now + (86_400 + 60) * 1000)
        #expect(throws: StratusError.self) { try Self.verify(p.token(["exp": .int(Int64.min)]), p) }
        #expect(throws: StratusError.self) { try Self.verify(p.token(["iat": .int(Int64.max)]), p) }
        #expect(throws: StratusError.self) { try Self.verify(p.token(["nbf": .int(Int64.max)]), p) }
    }

    /// The web flow compares the nonce Stratus sent as it is; a native app gives the provider the SHA-256 of its raw
    /// nonce and Stratus the raw one.
    @Test func nonceIsComparedRawOnTheWebAndHashedForNativeApps() throws {
        let p = Provider()
        var web = Self.expected
        web.nonce = .raw("n-123")
        #expect(try Self.verify(p.token(["nonce": "n-123"]), p, web).subject == "001234.abcd")
        #expect(throws: StratusError.self) { try Self.verify(p.token(["nonce": "n-124"]), p, web) }
        #expect(throws: StratusError.self) { try Self.verify(p.token(["nonce": nil]), p, web) }
        var native = Self.expected
        native.nonce = .hashed(raw: "raw-nonce")
        let hashed = SHA256.hash(data: Data("raw-nonce".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(try Self.verify(p.token(["nonce": .string(hashed)]), p, native).subject == "001234.abcd")
        #expect(throws: StratusError.self) { try Self.verify(p.token(["nonce": "raw-nonce"]), p, native) }
    }

    @Test func keysThisServerDoesNotVerifyWithAreLeftOut() {
        let set: JSON = ["keys": .array([
            ["kty": "oct", "k": "c2VjcmV0"], ["kty": "RSA", "use": "enc", "n": "AQAB", "e": "AQAB"], ["kty": "RSA", "n": "AQAB", "e": "AQAB"],
            ["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA"],
        ])]
        #expect(IdentityKey.set(set).isEmpty)
    }

    @Test func anOversizedTokenIsRefusedBeforeItIsDecoded() {
        #expect(throws: StratusError.self) { try IdentityToken(String(repeating: "a", count: IdentityToken.maximumLength + 1)) }
    }
}
