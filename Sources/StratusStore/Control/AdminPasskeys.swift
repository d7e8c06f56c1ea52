import Foundation
import StratusModel

/// Administrators' passkeys (`admins.passkeys`), apart from app users': added by a signed-in administrator, then a
/// second factor after the password, or the whole sign-in (a passkey verifies its user). The WebAuthn checks are
/// the sign-in pages' (`PasskeyCeremony`); this keeps the credentials and the ceremonies under way.
public struct AdminPasskeys: Sendable {
    let control: any SQLDatabase

    /// Ceremonies one client address may have under way, and the server.
    public static let ceremoniesPerAddress = 20, ceremoniesInAll = 10_000

    public func begin(_ ceremony: AdminPasskeyChallenge) throws(StratusError) {
        try control.beginCeremony("passkey ceremonies") { s, now in
            try AdminPasskeyRows.begin(ceremony, perAddress: Self.ceremoniesPerAddress, total: Self.ceremoniesInAll,
                                       now: now, s)
        }
    }

    public func take(challenge: String, binding: String) throws(StratusError) -> AdminPasskeyChallenge? {
        try control.takeCeremony { s, now in try AdminPasskeyRows.take(challenge, binding: binding, now: now, s) }
    }

    /// EXISTS when the credential is registered already (to anyone).
    public func add(credentialID: String, publicKey: Data, signCount: UInt32, admin: Admin) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try AdminPasskeyRows.insert(credentialID, admin: admin.id, publicKey: publicKey,
                                                  signCount: signCount, at: WallClock.nowMillis(), s) else {
                    throw StratusError(.exists, "this passkey is registered already")
                }
            }
        }
    }

    /// The administrator a credential is, with its key and counter.
    public func credential(_ id: String) throws(StratusError) -> (admin: Admin, publicKey: Data, signCount: UInt32)? {
        try guarded {
            try control.read { s in
                guard let found = try AdminPasskeyRows.find(id, s),
                      let admin = try AdminRows.all(s).first(where: { $0.id == found.admin }) else { return nil }
                return (admin, found.publicKey, found.signCount)
            }
        }
    }

    /// Moves the counter on; false when another sign-in with the same passkey moved it meanwhile.
    public func used(_ id: String, from old: UInt32, to new: UInt32) throws(StratusError) -> Bool {
        try guarded {
            try control.write { s in try AdminPasskeyRows.used(id, from: old, to: new, at: WallClock.nowMillis(), s) }
        }
    }

    public func count(of admin: Admin) throws(StratusError) -> Int {
        try guarded { try control.read { s in Int(try AdminPasskeyRows.count(of: admin.id, s)) } }
    }

    /// Ends a session's wait for its second step (a passkey passed it).
    public func passSecondStep(session token: String) throws(StratusError) {
        try guarded {
            try control.write { s in try AdminTwoFactorRows.setSecondStep(false, session: Secrets.tokenHash(token), s) }
        }
    }
}
