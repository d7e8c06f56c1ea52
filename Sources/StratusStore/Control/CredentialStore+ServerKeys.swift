import Crypto
import Foundation
import StratusModel

/// Server-to-server keys, kept in the control database.
extension CredentialStore {
    static func registerServerKeyMigrations(_ m: inout SQLMigrations) {
        m.add("v3-server-keys", ddl: """
            CREATE TABLE server_keys(key_id TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, public_key_pem TEXT NOT NULL,
                notes TEXT NOT NULL, user_record_name TEXT NOT NULL, created_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
            """)
    }

    /// The columns `serverKey(_:)` reads, in its order.
    private static let serverKeyColumns = "key_id, container, environment, public_key_pem, notes, user_record_name, created_at, revoked"

    /// Registers a public key (PEM, as `openssl ec -pubout` writes it) and returns it with its Key ID.
    public func addServerKey(container: ContainerID, environment: ContainerEnvironment, publicKeyPEM: String, notes: String = "") throws(StratusError) -> ServerKey {
        guard try registry.containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
        guard publicKeyPEM.utf8.count <= 8192, let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
            throw .badRequest("not an ECDSA P-256 public key in PEM form (make one with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem; openssl ec -in eckey.pem -pubout)")
        }
        let keyID = Secrets.hex(SHA256.hash(data: key.derRepresentation))
        let user = "_" + String(keyID.prefix(32))
        let sk = ServerKey(keyID: keyID, container: container, environment: environment, publicKeyPEM: key.pemRepresentation,
                           notes: String(notes.prefix(500)), userRecordName: user, createdAt: WallClock.nowMillis(), revoked: false)
        try guarded {
            try control.write { s in
                if try s.exists("SELECT 1 FROM server_keys WHERE key_id = ? AND container = ? AND environment = ? AND revoked = 0",
                                [keyID, container.rawValue, environment.rawValue]) {
                    throw StratusError(.exists, "this key is already registered for \(container) \(environment.rawValue)")
                }
                try s.execute("DELETE FROM server_keys WHERE key_id = ?", keyID)
                try s.execute("INSERT INTO server_keys(key_id, container, environment, public_key_pem, notes, user_record_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                              keyID, container.rawValue, environment.rawValue, sk.publicKeyPEM, sk.notes, user, sk.createdAt)
            }
        }
        return sk
    }

    private static func serverKey(_ r: any SQLRow) -> ServerKey? {
        guard let c = try? ContainerID(r.string(1) ?? ""), let e = ContainerEnvironment(rawValue: r.string(2) ?? "") else { return nil }
        return ServerKey(keyID: r.string(0) ?? "", container: c, environment: e, publicKeyPEM: r.string(3) ?? "", notes: r.string(4) ?? "",
                         userRecordName: r.string(5) ?? "", createdAt: r.int64(6) ?? 0, revoked: r.bool(7) ?? false)
    }

    public func serverKeys(container: ContainerID, environment: ContainerEnvironment) throws(StratusError) -> [ServerKey] {
        try guarded {
            try control.read { s in
                try s.all("SELECT \(Self.serverKeyColumns) FROM server_keys WHERE container = ? AND environment = ? ORDER BY created_at",
                          [container.rawValue, environment.rawValue], CredentialStore.serverKey)
            }
        }
    }

    /// The live key with this ID, or nil.
    public func serverKey(id: String) throws(StratusError) -> ServerKey? {
        guard id.utf8.count == 64 else { return nil }
        return try guarded {
            try control.read { s in
                try s.one("SELECT \(Self.serverKeyColumns) FROM server_keys WHERE key_id = ? AND revoked = 0", [id.lowercased()], CredentialStore.serverKey)
            }
        }
    }

    public func revokeServerKey(id: String, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try s.execute("UPDATE server_keys SET revoked = 1 WHERE key_id = ? AND container = ?", id.lowercased(), container.rawValue) == 1 else {
                    throw StratusError(.notFound, "no such key")
                }
            }
        }
    }
}
