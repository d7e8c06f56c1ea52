import Crypto
import Foundation
import StratusModel

/// Server-to-server keys, kept in the control database.
extension CredentialStore {
    /// Registers a public key (PEM, as `openssl ec -pubout` writes it) and returns it with its Key ID.
    public func addServerKey(container: ContainerID, environment: ContainerEnvironment, publicKeyPEM: String,
                             notes: String = "") throws(StratusError) -> ServerKey {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        guard publicKeyPEM.utf8.count <= 8192, let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
            throw .badRequest("not an ECDSA P-256 public key in PEM form (make one with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem; openssl ec -in eckey.pem -pubout)")
        }
        let keyID = Secrets.hex(SHA256.hash(data: key.derRepresentation))
        let user = "_" + String(keyID.prefix(32))
        let sk = ServerKey(keyID: keyID, container: container, environment: environment,
                           publicKeyPEM: key.pemRepresentation,
                           notes: String(notes.prefix(500)), userRecordName: user, createdAt: WallClock.nowMillis(), revoked: false)
        try guarded {
            try control.write { s in
                if try ServerKeyRows.isLive(keyID, container: container, environment: environment, s) {
                    throw StratusError(.exists,
                                       "this key is already registered for \(container) \(environment.rawValue)")
                }
                try ServerKeyRows.insert(sk, s)
            }
        }
        return sk
    }

    public func serverKeys(container: ContainerID,
                           environment: ContainerEnvironment) throws(StratusError) -> [ServerKey] {
        try guarded {
            try control.read { s in try ServerKeyRows.all(container: container, environment: environment, s) }
        }
    }

    /// The live key with this ID, or nil.
    public func serverKey(id: String) throws(StratusError) -> ServerKey? {
        guard id.utf8.count == 64 else { return nil }
        return try guarded {
            try control.read { s in try ServerKeyRows.live(id.lowercased(), s) }
        }
    }

    public func revokeServerKey(id: String, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try ServerKeyRows.revoke(id.lowercased(), container: container, s) else {
                    throw StratusError(.notFound, "no such key")
                }
            }
        }
    }
}
