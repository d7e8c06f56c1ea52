/// A developer's APNs signing key for one container environment (`stratus apns set`, the console's Notifications
/// page): the .p8 key Apple issued, its Key ID, the team that owns it and the app's bundle ID (the `apns-topic`).
/// The private key is the server's to sign provider tokens with; it is never shown back to anyone.
public struct APNsCredentials: Sendable, Hashable, CustomStringConvertible {
    public var container: ContainerID
    public var environment: ContainerEnvironment
    public var keyID, teamID, topic, privateKeyPEM: String
    public var updatedAt: Int64

    public init(container: ContainerID, environment: ContainerEnvironment, keyID: String, teamID: String, topic: String, privateKeyPEM: String, updatedAt: Int64) {
        self.container = container
        self.environment = environment
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.privateKeyPEM = privateKeyPEM
        self.updatedAt = updatedAt
    }

    /// Never the key: a log line or an error message that prints credentials shows who they are, not the secret.
    public var description: String { "APNs key \(keyID) of team \(teamID) for \(topic) (\(container) \(environment.rawValue))" }

    /// Apple's Key IDs and Team IDs: ten letters and digits.
    public static func validIdentifier(_ s: String) -> Bool {
        s.utf8.count == 10 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }

    /// A bundle ID, perhaps with APNs' suffixes (`.voip`, `.complication`): letters, digits, dots and hyphens.
    public static func validTopic(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 255 && s.first != "." && s.last != "."
            && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 46 || $0 == 45 }
    }
}
