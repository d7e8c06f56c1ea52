import Foundation
import StratusModel

/// Passkeys, in the control database: each container's registered credentials and the ceremonies under way. A
/// passkey-only account has no email until its user adds one: it is found by record name, shared with by link.
public final class PasskeyStore: Sendable {
    let control: any SQLDatabase

    init(control: any SQLDatabase) { self.control = control }

    /// Ceremonies one client address may have under way, and the server.
    public static let ceremoniesPerAddress = 20, ceremoniesInAll = 100_000

    /// Keeps a ceremony that begins; THROTTLED when its address, or the server, has too many under way.
    public func begin(_ ceremony: PasskeyChallenge) throws(StratusError) {
        try control.beginCeremony("passkey sign-ins") { s, now in
            try PasskeyChallenges.begin(ceremony, perAddress: Self.ceremoniesPerAddress, total: Self.ceremoniesInAll,
                                        now: now, s)
        }
    }

    /// The ceremony of `challenge`, taken once, if `binding` is the browser's that began it and it has not expired.
    public func take(challenge: String, binding: String) throws(StratusError) -> PasskeyChallenge? {
        try control.takeCeremony { s, now in try PasskeyChallenges.take(challenge, binding: binding, now: now, s) }
    }

    /// Registers a passkey for an existing user; EXISTS when the credential is registered already.
    public func add(credentialID: String, publicKey: Data, signCount: UInt32, user: String,
                    container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try UserRows.find(user, container: container, s) != nil else {
                    throw StratusError(.notFound, "no such user")
                }
                guard try PasskeyRows.insert(credentialID, user: user, publicKey: publicKey, signCount: signCount,
                                             container: container, at: WallClock.nowMillis(), s) else {
                    throw StratusError(.exists, "this passkey is registered already")
                }
            }
        }
    }

    /// A new account whose one way in is this passkey (no email, no password), named `userRecordName`.
    public func createAccount(_ userRecordName: String, credentialID: String, publicKey: Data, signCount: UInt32,
                              container: ContainerID) throws(StratusError) -> ContainerUser {
        let user = ContainerUser(userRecordName: userRecordName, email: "")
        try guarded {
            try control.write { s in
                let now = WallClock.nowMillis()
                try UserRows.insert(user, container: container, passwordHash: "", at: now, s)
                guard try PasskeyRows.insert(credentialID, user: userRecordName, publicKey: publicKey,
                                             signCount: signCount, container: container, at: now, s) else {
                    throw StratusError(.exists, "this passkey is registered already")
                }
            }
        }
        return user
    }

    /// A registered passkey: its user, public key (COSE) and the counter last seen.
    public func credential(_ id: String, container: ContainerID) throws(StratusError)
        -> (user: String, publicKey: Data, signCount: UInt32)? {
        try guarded { try control.read { s in try PasskeyRows.find(id, container: container, s) } }
    }

    /// Records a sign-in's counter; false when another sign-in with the same passkey moved it meanwhile.
    public func used(_ id: String, from old: UInt32, to new: UInt32,
                     container: ContainerID) throws(StratusError) -> Bool {
        try guarded {
            try control.write { s in try PasskeyRows.used(id, from: old, to: new, container: container,
                                                          at: WallClock.nowMillis(), s) }
        }
    }

    /// How many passkeys a user has.
    public func count(of user: String, container: ContainerID) throws(StratusError) -> Int {
        try guarded { Int(try control.read { s in try PasskeyRows.count(of: user, container: container, s) }) }
    }
}
