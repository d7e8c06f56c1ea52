import Crypto
import Foundation
import StratusModel

/// Developers' APNs keys, one per container environment, in the control database beside the other credentials
/// (0600, like the rest of the data directory). The key must be kept whole: the server signs with it.
extension CredentialStore {
    /// Stores (or replaces) the APNs key of a container environment after checking it: a P-256 private key in PEM
    /// form (the .p8 file Apple hands out), a ten-character Key ID and Team ID, and a bundle ID as the topic.
    @discardableResult
    public func setAPNsCredentials(container: ContainerID, environment: ContainerEnvironment, privateKeyPEM: String,
                                   keyID: String, teamID: String,
                                   topic: String) throws(StratusError) -> APNsCredentials {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        guard APNsCredentials.validIdentifier(keyID) else { throw .badRequest("the Key ID is the ten letters and digits Apple shows beside the key") }
        guard APNsCredentials.validIdentifier(teamID) else { throw .badRequest("the Team ID is the ten letters and digits of your Apple developer team") }
        guard APNsCredentials.validTopic(topic) else { throw .badRequest("the topic is the app's bundle ID, such as com.example.notes") }
        guard privateKeyPEM.utf8.count <= 8192, let key = try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) else {
            throw .badRequest("not an APNs signing key: give the AuthKey_….p8 file Apple issued (a P-256 private key in PEM form)")
        }
        let credentials = APNsCredentials(container: container, environment: environment, keyID: keyID.uppercased(),
                                          teamID: teamID.uppercased(),
                                          topic: topic, privateKeyPEM: key.pemRepresentation, updatedAt: WallClock.nowMillis())
        try guarded {
            try control.write { s in
                try APNsCredentialRows.replace(credentials, s)
            }
        }
        return credentials
    }

    public func apnsCredentials(container: ContainerID,
                                environment: ContainerEnvironment) throws(StratusError) -> APNsCredentials? {
        try guarded {
            try control.read { s in try APNsCredentialRows.find(container: container, environment: environment, s) }
        }
    }

    /// Every container environment that can push to Apple devices (the deliverer's work list).
    public func allAPNsCredentials() throws(StratusError) -> [APNsCredentials] {
        try guarded { try control.read { s in try APNsCredentialRows.all(s) } }
    }

    public func removeAPNsCredentials(container: ContainerID, environment: ContainerEnvironment) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try APNsCredentialRows.remove(container: container, environment: environment, s) else {
                    throw StratusError(.notFound, "no APNs key is set for \(container) \(environment.rawValue)")
                }
            }
        }
    }
}
