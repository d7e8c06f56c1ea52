import Crypto
import Foundation
import Synchronization

/// The JSON Web Token APNs takes as `authorization: bearer …`: ES256 over `{"alg":"ES256","kid":KEY_ID}` and
/// `{"iss":TEAM_ID,"iat":SECONDS}`, signed with the developer's .p8 key. APNs refuses a token older than an hour
/// and one renewed more often than every 20 minutes, so one is made and kept for 50 minutes (or until APNs says
/// it expired).
public final class APNsProviderToken: Sendable {
    public let keyID, teamID: String
    private let key: P256.Signing.PrivateKey
    private let current = Mutex<(token: String, issuedAt: Int64)?>(nil)
    /// How long a token is used before a new one is made.
    static let lifetime: Int64 = 50 * 60

    public init(privateKeyPEM: String, keyID: String, teamID: String) throws {
        key = try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The token to send now.
    public func token(now: Date = Date()) -> String {
        let seconds = Int64(now.timeIntervalSince1970)
        return current.withLock { c in
            if let c, seconds - c.issuedAt < Self.lifetime, seconds >= c.issuedAt { return c.token }
            let made = make(issuedAt: seconds)
            c = (made, seconds)
            return made
        }
    }

    /// Drops the token in use (APNs answered ExpiredProviderToken), so the next `token()` makes another.
    public func renew() { current.withLock { $0 = nil } }

    func make(issuedAt: Int64) -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyID)"}"#
        let claims = #"{"iss":"\#(teamID)","iat":\#(issuedAt)}"#
        let signingInput = Self.base64URL(Data(header.utf8)) + "." + Self.base64URL(Data(claims.utf8))
        // JWS wants ES256 signatures as r‖s (64 bytes), which is CryptoKit's raw form, not DER.
        let signature = (try? key.signature(for: Data(signingInput.utf8)).rawRepresentation) ?? Data()
        return signingInput + "." + Self.base64URL(signature)
    }

    static func base64URL(_ d: Data) -> String {
        d.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/",
                with: "_").replacingOccurrences(of: "=", with: "")
    }
}
