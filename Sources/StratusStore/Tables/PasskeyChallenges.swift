import Foundation
import StratusModel

/// `passkey_challenges` (control database): the passkey ceremonies under way (`PasskeyChallenge`), by the hash of
/// their challenge, with the hash of their browser binding; each taken once, and gone when it expires. Every
/// statement on it is here.
enum PasskeyChallenges {
    enum Column: String, TableColumn {
        case challenge, container, environment, purpose, userRecordName = "user_record_name", callback, origin, binding
        case address, expiresAt = "expires_at"
    }

    /// Keeps a ceremony that begins, after forgetting expired ones; false past `perAddress` or `total` under way.
    static func begin(_ c: PasskeyChallenge, perAddress: Int, total: Int, now: Int64,
                      _ s: any SQLSession) throws -> Bool {
        guard try CeremonyBudget.admits("passkey_challenges", address: c.address, perAddress: perAddress, total: total,
                                        now: now, s) else { return false }
        try s.execute("""
            INSERT INTO passkey_challenges(challenge, container, environment, purpose, user_record_name, callback,
                                           origin, binding, address, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, SignInFlows.digest(c.challenge), c.container.rawValue, c.environment.rawValue, c.purpose.rawValue,
                      c.user, c.callback, c.origin, SignInFlows.digest(c.binding), c.address, c.expiresAt)
        return true
    }

    private static let ceremony = Selection<Column>([.container, .environment, .purpose, .userRecordName, .callback,
                                                     .origin, .binding, .address, .expiresAt])

    /// The ceremony of `challenge`, taken (it never ends twice), if it has not expired and `binding` is the
    /// browser's that began it.
    static func take(_ challenge: String, binding: String, now: Int64,
                     _ s: any SQLSession) throws -> PasskeyChallenge? {
        try CeremonyBudget.take("passkey_challenges", keyColumn: "challenge", key: SignInFlows.digest(challenge),
                                columns: ceremony.sql, now: now, s, expiresAt: \.expiresAt) { r -> PasskeyChallenge? in
            let row = NamedRow(r, ceremony)
            guard let c = try? ContainerID(row.string(.container) ?? ""),
                  let e = ContainerEnvironment(rawValue: row.string(.environment) ?? ""),
                  let purpose = PasskeyChallenge.Purpose(rawValue: row.string(.purpose) ?? ""),
                  row.string(.binding) == SignInFlows.digest(binding) else { return nil }
            return PasskeyChallenge(challenge: challenge, binding: binding, container: c, environment: e,
                                    purpose: purpose, user: row.string(.userRecordName),
                                    callback: row.string(.callback),
                                    origin: row.string(.origin), address: row.string(.address) ?? "",
                                    expiresAt: row.int64(.expiresAt) ?? 0)
        }
    }
}
