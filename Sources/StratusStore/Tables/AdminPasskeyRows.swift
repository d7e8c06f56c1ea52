import Foundation
import StratusModel

/// `admin_passkeys` and `admin_passkey_challenges` (control database): administrators' passkeys, kept apart from
/// app users' (`passkeys`), and their ceremonies under way, by the hash of the challenge with the hash of the
/// browser's binding, each taken once. Every statement on them is here, and the migration that made them.
enum AdminPasskeyRows {
    enum Column: String, TableColumn {
        case credentialID = "credential_id", adminID = "admin_id", publicKey = "public_key", signCount = "sign_count"
        case createdAt = "created_at", lastUsedAt = "last_used_at"
        case challenge, purpose, binding, address, expiresAt = "expires_at"
    }

    static func registerMigrations(_ m: inout SQLMigrations) {
        m.add("v33-admin-passkeys") { s in
            try s.script(s.dialect.ddl("""
                CREATE TABLE admin_passkeys(credential_id TEXT PRIMARY KEY, admin_id INTEGER NOT NULL,
                    public_key BLOB NOT NULL, sign_count INTEGER NOT NULL, created_at INTEGER NOT NULL,
                    last_used_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX admin_passkeys_admin ON admin_passkeys(admin_id);
                CREATE TABLE admin_passkey_challenges(challenge TEXT PRIMARY KEY, admin_id INTEGER,
                    purpose TEXT NOT NULL,
                    binding TEXT NOT NULL, address TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX admin_passkey_challenges_expiry ON admin_passkey_challenges(expires_at);
                CREATE INDEX admin_passkey_challenges_address ON admin_passkey_challenges(address);
                """))
        }
    }

    static func begin(_ c: AdminPasskeyChallenge, perAddress: Int, total: Int, now: Int64,
                      _ s: any SQLSession) throws -> Bool {
        guard try CeremonyBudget.admits("admin_passkey_challenges", address: c.address, perAddress: perAddress,
                                        total: total, now: now, s) else { return false }
        try s.execute("""
            INSERT INTO admin_passkey_challenges(challenge, admin_id, purpose, binding, address, expires_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """, SignInFlows.digest(c.challenge), c.admin, c.purpose.rawValue, SignInFlows.digest(c.binding),
                      c.address, c.expiresAt)
        return true
    }

    private static let ceremony = Selection<Column>([.adminID, .purpose, .binding, .address, .expiresAt])

    /// The ceremony of `challenge`, taken once, if `binding` is its browser's and it has not expired.
    static func take(_ challenge: String, binding: String, now: Int64,
                     _ s: any SQLSession) throws -> AdminPasskeyChallenge? {
        try CeremonyBudget.take("admin_passkey_challenges", keyColumn: "challenge", key: SignInFlows.digest(challenge),
                                columns: ceremony.sql, now: now, s, expiresAt: \.expiresAt) { r -> AdminPasskeyChallenge? in
            let row = NamedRow(r, ceremony)
            guard let purpose = AdminPasskeyChallenge.Purpose(rawValue: row.string(.purpose) ?? ""),
                  row.string(.binding) == SignInFlows.digest(binding) else { return nil }
            return AdminPasskeyChallenge(challenge: challenge, binding: binding, admin: row.int64(.adminID),
                                         purpose: purpose, address: row.string(.address) ?? "",
                                         expiresAt: row.int64(.expiresAt) ?? 0)
        }
    }

    /// False when the credential is registered already.
    static func insert(_ id: String, admin: Int64, publicKey: Data, signCount: UInt32, at now: Int64,
                       _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            INSERT INTO admin_passkeys(credential_id, admin_id, public_key, sign_count, created_at, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(credential_id) DO NOTHING
            """, id, admin, publicKey, Int64(signCount), now, now) == 1
    }

    private static let credential = Selection<Column>([.adminID, .publicKey, .signCount])

    static func find(_ id: String, _ s: any SQLSession) throws -> (admin: Int64, publicKey: Data, signCount: UInt32)? {
        try s.one("SELECT \(credential.sql) FROM admin_passkeys WHERE credential_id = ?", [id]) { r in
            let row = NamedRow(r, credential)
            guard let admin = row.int64(.adminID), let key = row.data(.publicKey) else { return nil }
            return (admin, key, UInt32(clamping: row.int64(.signCount) ?? 0))
        }
    }

    /// Moves the counter on, only from what was read: false when another sign-in moved it meanwhile.
    static func used(_ id: String, from old: UInt32, to new: UInt32, at now: Int64,
                     _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            UPDATE admin_passkeys SET sign_count = ?, last_used_at = ? WHERE credential_id = ? AND sign_count = ?
            """, Int64(new), now, id, Int64(old)) == 1
    }

    static func count(of admin: Int64, _ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT COUNT(*) FROM admin_passkeys WHERE admin_id = ?", [admin]) ?? 0
    }

    static func deleteAll(of admin: Int64, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM admin_passkeys WHERE admin_id = ?", admin)
    }
}
