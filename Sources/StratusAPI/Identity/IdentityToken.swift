import Crypto
import Foundation
import StratusJSON
import StratusModel

/// An OpenID Connect identity token (a JWS in compact form) checked completely before anything of it is believed:
/// the algorithm from an allow-list (RS256, ES256; never `none`, never a symmetric one), the signature against the
/// issuer's key of the token's `kid` whose algorithm matches, `iss`, `aud` among the client IDs, `exp`, `iat` and
/// `nbf` within `skew`, and the nonce. Every refusal is AUTHENTICATION_FAILED, and says which check failed, never
/// the token.
struct IdentityToken: Sendable {
    /// How the nonce is compared: the web flow sends the provider the raw nonce Stratus made; a native app gives the
    /// provider the lowercase hex SHA-256 of its raw nonce and hands Stratus the raw one.
    enum Nonce: Sendable {
        case raw(String)
        case hashed(raw: String)
    }

    /// What the checks need besides the token.
    struct Expectations: Sendable {
        var issuer: String
        var audiences: Set<String>
        var nonce: Nonce?
        var now: Int64
        /// Clock skew allowed each way, in seconds.
        var skew: Int64 = 60
    }

    static let allowedAlgorithms: Set<String> = ["RS256", "ES256"]
    /// Longer than any provider's token; more is refused before it is decoded.
    static let maximumLength = 16 * 1024

    let header: JSON
    let claims: JSON
    private let signingInput: Data
    private let signature: Data

    /// The token's parts, decoded; BAD_REQUEST-free: anything malformed is AUTHENTICATION_FAILED.
    init(_ compact: String) throws(StratusError) {
        guard compact.utf8.count <= Self.maximumLength else { throw Self.refusal("the identity token is too long") }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = IdentityKey.base64URL(String(parts[0])), let c = IdentityKey.base64URL(String(parts[1])),
              let s = IdentityKey.base64URL(String(parts[2])), !s.isEmpty,
              let header = try? JSON.parse(h), header.object != nil, let claims = try? JSON.parse(c), claims.object != nil else {
            throw Self.refusal("the identity token is not a signed JWT")
        }
        self.header = header
        self.claims = claims
        signingInput = Data((parts[0] + "." + parts[1]).utf8)
        signature = s
    }

    /// The key ID the header names, to find the issuer's key by.
    var keyID: String? { header["kid"]?.string }

    /// The token's claims about its user once every check passes; `keys`: the issuer's published keys.
    func verify(keys: [IdentityKey], _ expected: Expectations) throws(StratusError) -> IdentityClaims {
        guard let alg = header["alg"]?.string, Self.allowedAlgorithms.contains(alg) else {
            throw Self.refusal("the identity token's algorithm is not RS256 or ES256")
        }
        let candidates = keys.filter { $0.algorithm == alg && (keyID == nil || $0.keyID == keyID) }
        guard !candidates.isEmpty else { throw Self.refusal("no key of the issuer matches the identity token's kid and algorithm") }
        guard candidates.contains(where: { $0.verifies(signature, of: signingInput) }) else {
            throw Self.refusal("the identity token's signature does not verify")
        }
        guard claims["iss"]?.string == expected.issuer else { throw Self.refusal("the identity token is from another issuer") }
        let audiences = claims["aud"]?.string.map { [$0] } ?? claims["aud"]?.array?.compactMap(\.string) ?? []
        guard audiences.contains(where: expected.audiences.contains) else { throw Self.refusal("the identity token is for another client") }
        try checkTimes(expected)
        try checkNonce(expected.nonce)
        guard let subject = claims["sub"]?.string, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw Self.refusal("the identity token names no subject")
        }
        let email = claims["email"]?.string.flatMap { $0.isEmpty || $0.utf8.count > 320 ? nil : $0 }
        return IdentityClaims(issuer: expected.issuer, subject: subject, email: email,
                              emailVerified: Self.flag(claims["email_verified"]),
                              isPrivateEmail: Self.flag(claims["is_private_email"]), givenName: claims["given_name"]?.string,
                              familyName: claims["family_name"]?.string)
    }

    /// Compared so that no claim's number can overflow (each side stays near now).
    private func checkTimes(_ expected: Expectations) throws(StratusError) {
        let now = expected.now / 1000
        guard let exp = claims["exp"]?.int64, exp > now - expected.skew else {
            throw Self.refusal("the identity token has expired")
        }
        if let iat = claims["iat"]?.int64, iat > now + expected.skew {
            throw Self.refusal("the identity token is issued in the future")
        }
        if let nbf = claims["nbf"]?.int64, nbf > now + expected.skew {
            throw Self.refusal("the identity token is not valid yet")
        }
    }

    /// Until when the token's nonce must be remembered, in milliseconds: its expiry with the skew, at most a day
    /// ahead (a provider's tokens live minutes).
    func nonceKeptUntil(_ expected: Expectations) -> Int64 {
        let now = expected.now / 1000, exp = claims["exp"]?.int64 ?? now
        return (min(exp, now + 86_400) + expected.skew) * 1000
    }

    private func checkNonce(_ nonce: Nonce?) throws(StratusError) {
        guard let nonce else { return }
        let expected = switch nonce {
        case .raw(let raw): raw
        case .hashed(let raw): SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
        }
        guard !expected.isEmpty, claims["nonce"]?.string == expected else { throw Self.refusal("the identity token's nonce does not match") }
    }

    /// `true` or `"true"`, as providers send booleans either way.
    private static func flag(_ v: JSON?) -> Bool { v?.bool ?? (v?.string == "true") }

    private static func refusal(_ reason: String) -> StratusError { StratusError.authenticationFailed(reason) }
}
