import Foundation
import StratusModel

/// `passkeys` (control database): each container's passkeys, by their credential ID (base64url), with their user,
/// their public key (the COSE key as registered) and the signature counter last seen. Every statement on it is here.
enum PasskeyRows {
    enum Column: String, TableColumn {
        case container, credentialID = "credential_id", userRecordName = "user_record_name", publicKey = "public_key"
        case signCount = "sign_count", createdAt = "created_at", lastUsedAt = "last_used_at"
    }

    /// False when the credential is registered already.
    static func insert(_ id: String, user: String, publicKey: Data, signCount: UInt32, container: ContainerID,
                       at now: Int64, _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            INSERT INTO passkeys(container, credential_id, user_record_name, public_key, sign_count, created_at,
                last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(container, credential_id) DO NOTHING
            """, container.rawValue, id, user, publicKey, Int64(signCount), now, now) == 1
    }

    private static let passkey = Selection<Column>([.userRecordName, .publicKey, .signCount])

    static func find(_ id: String, container: ContainerID,
                     _ s: any SQLSession) throws -> (user: String, publicKey: Data, signCount: UInt32)? {
        try s.one("SELECT \(passkey.sql) FROM passkeys WHERE container = ? AND credential_id = ?",
                  [container.rawValue, id]) { r in
            let row = NamedRow(r, passkey)
            guard let user = row.string(.userRecordName), let key = row.data(.publicKey) else { return nil }
            return (user, key, UInt32(clamping: row.int64(.signCount) ?? 0))
        }
    }

    /// Records a sign-in's counter, if it is still the one read (a sign-in with a copy at once loses).
    static func used(_ id: String, from old: UInt32, to new: UInt32, container: ContainerID, at now: Int64,
                     _ s: any SQLSession) throws -> Bool {
        try s.execute("""
            UPDATE passkeys SET sign_count = ?, last_used_at = ?
            WHERE container = ? AND credential_id = ? AND sign_count = ?
            """, Int64(new), now, container.rawValue, id, Int64(old)) == 1
    }

    /// How many passkeys each of the container's users has.
    static func counts(container: ContainerID, _ s: any SQLSession) throws -> [(user: String, passkeys: Int64)] {
        try s.all("SELECT user_record_name, COUNT(*) FROM passkeys WHERE container = ? GROUP BY user_record_name",
                  [container.rawValue]) { r in
            let row = NamedRow(r, Selection<Column>([.userRecordName]))
            return row.string(.userRecordName).map { ($0, r.int64(row.end) ?? 0) }
        }
    }

    /// Removes a user's passkeys; how many there were.
    static func deleteAll(of user: String, container: ContainerID, _ s: any SQLSession) throws -> Int {
        try s.execute("DELETE FROM passkeys WHERE container = ? AND user_record_name = ?", container.rawValue, user)
    }

    static func count(of user: String, container: ContainerID, _ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT COUNT(*) FROM passkeys WHERE container = ? AND user_record_name = ?", [container.rawValue,
                user]) ?? 0
    }
}
