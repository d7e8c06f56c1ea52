/// A server-to-server key: an ECDSA P-256 public key an admin registered for one container environment.
/// Requests signed with its private key act on the public database as the key's own user.
public struct ServerKey: Sendable, Hashable {
    /// 64 lowercase hex: the SHA-256 of the key's DER form.
    public var keyID: String
    public var container: ContainerID
    public var environment: ContainerEnvironment
    public var publicKeyPEM, notes: String
    /// The user records written with this key are credited to.
    public var userRecordName: String
    public var createdAt: Int64
    public var revoked: Bool

    public init(keyID: String, container: ContainerID, environment: ContainerEnvironment, publicKeyPEM: String,
                notes: String,
                userRecordName: String, createdAt: Int64, revoked: Bool) {
        self.keyID = keyID
        self.container = container
        self.environment = environment
        self.publicKeyPEM = publicKeyPEM
        self.notes = notes
        self.userRecordName = userRecordName
        self.createdAt = createdAt
        self.revoked = revoked
    }
}
