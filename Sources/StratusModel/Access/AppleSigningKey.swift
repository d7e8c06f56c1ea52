import Foundation

/// What Apple's web sign-in needs to make its client secret: the team ID, and the ID and private key (the `.p8`
/// file's PEM) of a Sign in with Apple key. Apple takes no fixed client secret: each is a JWT signed with this key,
/// at most six months long, which Stratus makes (and makes again before it expires) instead of the operator.
public struct AppleSigningKey: Sendable, Equatable {
    public var teamID, keyID: String
    /// The PKCS#8 PEM of a P-256 private key: a secret, never shown, never logged.
    public var privateKeyPEM: String

    /// Checked as Apple issues them: IDs of 10 letters and digits (uppercase), a PEM under 4 KB. Whether the PEM is a
    /// P-256 key is for the store to check, which reads it. BAD_REQUEST says what is wrong.
    public init(teamID: String, keyID: String, privateKeyPEM: String) throws(StratusError) {
        for (what, id) in [("team ID", teamID), ("key ID", keyID)] {
            guard id.utf8.count == 10, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
            else { throw .badRequest("Apple's \(what) is 10 uppercase letters and digits") }
        }
        let pem = privateKeyPEM.trimmingCharacters(in: .whitespacesAndNewlines)
        guard pem.utf8.count <= 4096, pem.hasPrefix("-----BEGIN PRIVATE KEY-----") else {
            throw .badRequest("Apple's private key is the .p8 file's PEM (-----BEGIN PRIVATE KEY-----)")
        }
        (self.teamID, self.keyID, self.privateKeyPEM) = (teamID, keyID, pem)
    }
}
