import Crypto
import Foundation
import GRDB
import StratusModel

/// Server-to-server keys, kept in the control database.
extension RecordStore {
    static func registerServerKeyMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v3-server-keys") { db in
            try db.execute(sql: """
                CREATE TABLE server_keys(key_id TEXT PRIMARY KEY, container TEXT NOT NULL, environment TEXT NOT NULL, public_key_pem TEXT NOT NULL,
                    notes TEXT NOT NULL, user_record_name TEXT NOT NULL, created_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
                """)
        }
    }

    /// Registers a public key (PEM, as `openssl ec -pubout` writes it) and returns it with its Key ID.
    public func addServerKey(container: ContainerID, environment: Environment, publicKeyPEM: String, notes: String = "") throws(StratusError) -> ServerKey {
        guard try containerExists(container) else { throw StratusError(.notFound, "container \(container) does not exist") }
        guard publicKeyPEM.utf8.count <= 8192, let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) else {
            throw .badRequest("not an ECDSA P-256 public key in PEM form (make one with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem; openssl ec -in eckey.pem -pubout)")
        }
        let keyID = Secrets.hex(SHA256.hash(data: key.derRepresentation))
        let user = "_" + String(keyID.prefix(32))
        let sk = ServerKey(keyID: keyID, container: container, environment: environment, publicKeyPEM: key.pemRepresentation,
                           notes: String(notes.prefix(500)), userRecordName: user, createdAt: Clock.nowMillis(), revoked: false)
        try guarded {
            try control.write { db in
                if try Bool.fetchOne(db, sql: "SELECT 1 FROM server_keys WHERE key_id = ? AND container = ? AND environment = ? AND revoked = 0",
                                     arguments: [keyID, container.rawValue, environment.rawValue]) == true {
                    throw StratusError(.exists, "this key is already registered for \(container) \(environment.rawValue)")
                }
                try db.execute(sql: "DELETE FROM server_keys WHERE key_id = ?", arguments: [keyID])
                try db.execute(sql: """
                    INSERT INTO server_keys(key_id, container, environment, public_key_pem, notes, user_record_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [keyID, container.rawValue, environment.rawValue, sk.publicKeyPEM, sk.notes, user, sk.createdAt])
            }
        }
        return sk
    }

    private static func serverKey(_ row: Row) -> ServerKey? {
        guard let c = try? ContainerID(row["container"] as String), let e = Environment(rawValue: row["environment"]) else { return nil }
        return ServerKey(keyID: row["key_id"], container: c, environment: e, publicKeyPEM: row["public_key_pem"], notes: row["notes"],
                         userRecordName: row["user_record_name"], createdAt: row["created_at"], revoked: row["revoked"])
    }

    public func serverKeys(container: ContainerID, environment: Environment) throws(StratusError) -> [ServerKey] {
        try guarded {
            try control.read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM server_keys WHERE container = ? AND environment = ? ORDER BY created_at",
                                 arguments: [container.rawValue, environment.rawValue]).compactMap(RecordStore.serverKey)
            }
        }
    }

    /// The live key with this ID, or nil.
    public func serverKey(id: String) throws(StratusError) -> ServerKey? {
        guard id.utf8.count == 64 else { return nil }
        return try guarded {
            try control.read { db in
                try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM server_keys WHERE key_id = ? AND revoked = 0"), arguments: [id.lowercased()])
                    .flatMap(RecordStore.serverKey)
            }
        }
    }

    public func revokeServerKey(id: String, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { db in
                try db.execute(sql: "UPDATE server_keys SET revoked = 1 WHERE key_id = ? AND container = ?", arguments: [id.lowercased(), container.rawValue])
                guard db.changesCount == 1 else { throw StratusError(.notFound, "no such key") }
            }
        }
    }
}
