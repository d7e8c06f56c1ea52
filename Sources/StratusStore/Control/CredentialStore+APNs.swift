import Crypto
import Foundation
import StratusModel

/// Developers' APNs keys, one per container environment, in the control database beside the other credentials
/// (0600, like the rest of the data directory). The key must be kept whole: the server signs with it.
extension CredentialStore {
    static func registerAPNsMigrations(_ m: inout SQLMigrations) {
        m.add("v9-apns", ddl: """
            CREATE TABLE apns_credentials(container TEXT NOT NULL, environment TEXT NOT NULL, key_id TEXT NOT NULL, team_id TEXT NOT NULL,
                topic TEXT NOT NULL, private_key_pem TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY(container, environment)) WITHOUT ROWID;
            """)
    }

    private static let apnsColumns = "container, environment, key_id, team_id, topic, private_key_pem, updated_at"

    private static func apnsCredentials(_ r: any SQLRow) -> APNsCredentials? {
        guard let c = try? ContainerID(r.string(0) ?? ""), let e = ContainerEnvironment(rawValue: r.string(1) ?? "") else { return nil }
        return APNsCredentials(container: c, environment: e, keyID: r.string(2) ?? "", teamID: r.string(3) ?? "", topic: r.string(4) ?? "",
                               privateKeyPEM: r.string(5) ?? "", updatedAt: r.int64(6) ?? 0)
    }

    /// Stores (or replaces) the APNs key of a container environment after checking it: a P-256 private key in PEM
    /// form (the .p8 file Apple hands out), a ten-character Key ID and Team ID, and a bundle ID as the topic.
    @discardableResult
    public func setAPNsCredentials(container: ContainerID, environment: ContainerEnvironment, privateKeyPEM: String, keyID: String, teamID: String,
                                   topic: String) throws(StratusError) -> APNsCredentials {
        guard try registry.containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
        guard APNsCredentials.validIdentifier(keyID) else { throw .badRequest("the Key ID is the ten letters and digits Apple shows beside the key") }
        guard APNsCredentials.validIdentifier(teamID) else { throw .badRequest("the Team ID is the ten letters and digits of your Apple developer team") }
        guard APNsCredentials.validTopic(topic) else { throw .badRequest("the topic is the app's bundle ID, such as com.example.notes") }
        guard privateKeyPEM.utf8.count <= 8192, let key = try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) else {
            throw .badRequest("not an APNs signing key: give the AuthKey_….p8 file Apple issued (a P-256 private key in PEM form)")
        }
        let credentials = APNsCredentials(container: container, environment: environment, keyID: keyID.uppercased(), teamID: teamID.uppercased(),
                                          topic: topic, privateKeyPEM: key.pemRepresentation, updatedAt: WallClock.nowMillis())
        try guarded {
            try control.write { s in
                try s.execute("DELETE FROM apns_credentials WHERE container = ? AND environment = ?", container.rawValue, environment.rawValue)
                try s.execute("INSERT INTO apns_credentials(\(Self.apnsColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)", container.rawValue, environment.rawValue,
                              credentials.keyID, credentials.teamID, credentials.topic, credentials.privateKeyPEM, credentials.updatedAt)
            }
        }
        return credentials
    }

    public func apnsCredentials(container: ContainerID, environment: ContainerEnvironment) throws(StratusError) -> APNsCredentials? {
        try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.apnsColumns) FROM apns_credentials WHERE container = ? AND environment = ?",
                          [container.rawValue, environment.rawValue], CredentialStore.apnsCredentials)
            }
        }
    }

    /// Every container environment that can push to Apple devices (the deliverer's work list).
    public func allAPNsCredentials() throws(StratusError) -> [APNsCredentials] {
        try guarded { try control.read { s in try s.all("SELECT \(Self.apnsColumns) FROM apns_credentials ORDER BY container, environment", [], CredentialStore.apnsCredentials) } }
    }

    public func removeAPNsCredentials(container: ContainerID, environment: ContainerEnvironment) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("DELETE FROM apns_credentials WHERE container = ? AND environment = ?", container.rawValue, environment.rawValue) == 1 else {
                    throw StratusError(.notFound, "no APNs key is set for \(container) \(environment.rawValue)")
                }
            }
        }
    }
}
