import Crypto
import Foundation
import StratusModel

/// Signing in with an OpenID provider, in the control database: each container's providers, which user each
/// provider's subject is, and the nonces already accepted. A subject is always the same user, made at its first
/// sign-in; a verified email that is another account's never signs in to that account (its owner links the ways
/// once, proving the account), and an unverified one is never an account's email.
public final class IdentityStore: Sendable {
    let control: any SQLDatabase
    let registry: EnvironmentRegistry

    init(control: any SQLDatabase, registry: EnvironmentRegistry) {
        self.control = control
        self.registry = registry
    }

    // MARK: providers

    /// Adds a provider to a container, or replaces the one of its name. `secret`: how its web sign-in proves
    /// itself (nil: apps sign in natively only); Apple's key must be a P-256 private key.
    public func saveProvider(_ provider: IdentityProvider, container: ContainerID,
                             secret: WebClientSecret? = nil) throws(StratusError) {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        switch secret {
        case .fixed(let fixed) where !(1...4096).contains(fixed.utf8.count):
            throw .badRequest("a client secret is 1 to 4096 bytes")
        case .apple(let key) where (try? P256.Signing.PrivateKey(pemRepresentation: key.privateKeyPEM)) == nil:
            throw .badRequest("Apple's private key is not a P-256 key in PEM (the .p8 file Apple gave)")
        default: break
        }
        try guarded {
            try control.write { s in try IdentityProviderRows.save(provider, secret: secret, container: container,
                                                                   at: WallClock.nowMillis(), s) }
        }
    }

    /// Adds a provider with a fixed client secret for its web sign-in (nil: native sign-in only).
    public func saveProvider(_ provider: IdentityProvider, container: ContainerID,
                             clientSecret: String?) throws(StratusError) {
        try saveProvider(provider, container: container, secret: clientSecret.map(WebClientSecret.fixed))
    }

    /// How a provider's web sign-in proves itself; nil when it has no web sign-in.
    public func webSecret(_ provider: String, container: ContainerID) throws(StratusError) -> WebClientSecret? {
        try guarded { try control.read { s in try IdentityProviderRows.secret(provider, container: container, s) } }
    }

    /// The providers whose buttons the sign-in page shows: those with a client secret.
    public func webProviders(container: ContainerID) throws(StratusError) -> [String] {
        try guarded { try control.read { s in try IdentityProviderRows.web(container: container, s) } }
    }

    /// Web sign-ins one client address may have under way, and the server.
    public static let webSignInsPerAddress = 20, webSignInsInAll = 100_000

    /// Keeps a web sign-in that begins; THROTTLED when its address, or the server, has too many under way.
    public func beginWebSignIn(_ flow: WebSignIn) throws(StratusError) {
        try control.beginCeremony("sign-ins") { s, now in
            try SignInFlows.begin(flow, perAddress: Self.webSignInsPerAddress, total: Self.webSignInsInAll, now: now, s)
        }
    }

    /// The web sign-in of `state`, taken once, if `binding` is the browser's that began it and it has not expired.
    public func takeWebSignIn(state: String, binding: String) throws(StratusError) -> WebSignIn? {
        try control.takeCeremony { s, now in try SignInFlows.take(state: state, binding: binding, now: now, s) }
    }

    public func providers(container: ContainerID) throws(StratusError) -> [IdentityProvider] {
        try guarded { try control.read { s in try IdentityProviderRows.all(container: container, s) } }
    }

    public func provider(_ name: String, container: ContainerID) throws(StratusError) -> IdentityProvider? {
        try guarded { try control.read { s in try IdentityProviderRows.find(name, container: container, s) } }
    }

    /// Removes a provider (NOT_FOUND when there is none of that name). Its users keep their accounts: they sign in
    /// again once a provider of the same issuer is added, under any name.
    public func removeProvider(_ name: String, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try IdentityProviderRows.delete(name, container: container, s) else {
                    throw StratusError(.notFound, "container \(container) has no provider '\(name.prefix(64))'")
                }
            }
        }
    }

    // MARK: signing in

    /// Takes an identity token's nonce, once: false when a token of this issuer and nonce signed in before.
    /// Kept until `expiresAt` (the token's own expiry and its skew), after which the token is refused anyway.
    public func takeNonce(issuer: String, nonce: String, expiresAt: Int64) throws(StratusError) -> Bool {
        let digest = SHA256.hash(data: Data("\(issuer)\u{0}\(nonce)".utf8)).map { String(format: "%02x", $0) }.joined()
        return try guarded {
            try control.write { s in try UsedNonces.take(digest, expiresAt: expiresAt, now: WallClock.nowMillis(), s) }
        }
    }

    /// The user a verified identity is: the one its `(issuer, subject)` signed in as before, or a new one. A new
    /// user takes the token's email only when the provider verified it and no account has it; a verified email
    /// that is another account's is refused (AUTHENTICATION_FAILED), since signing in must never take over an
    /// account. Names given (Apple sends them once, outside the token) or claimed are kept on first sign-in. A new
    /// user is made only where the container's sign-up ways include `.provider`.
    ///
    /// `proven`: the user whose account the caller has just proven (a live session, a password, a passkey). An
    /// identity that leads nowhere yet is linked to them; one that is another user's is refused.
    public func signIn(_ identity: IdentityClaims, container: ContainerID, givenName: String? = nil,
                       familyName: String? = nil, proven: String? = nil) throws(StratusError) -> ContainerUser {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        if let proven { return try link(identity, to: proven, container: container) }
        // Two first sign-ins of one subject at once (PostgreSQL): the second finds the first's user.
        for _ in 0..<2 {
            if let user = try existing(identity, container: container) { return user }
            guard try AccountStore(control: control, registry: registry).signUpWays(container: container)
                .contains(.provider) else {
                throw StratusError(.authenticationFailed,
                                   "this app makes no new accounts by signing in with a provider")
            }
            if let user = try create(identity, container: container, givenName: givenName, familyName: familyName) {
                if !user.email.isEmpty {
                    for e in ContainerEnvironment.allCases {
                        try registry.environment(container, e).sharing.claimInvitations(email: user.email,
                                                                                        user: user.userRecordName)
                    }
                }
                return user
            }
        }
        throw StratusError(.tryAgainLater, "signing in met another sign-in of the same account: try again")
    }

    /// The account a sign-in with `identity` must prove before it leads anywhere: the one that has the identity's
    /// verified email, when the identity is no one's yet. Nil when the identity signs in (or makes an account) as
    /// it is.
    public func accountToProve(_ identity: IdentityClaims, container: ContainerID) throws(StratusError)
        -> ContainerUser? {
        guard identity.emailVerified, let email = identity.email, EmailAddress.isValid(email) else { return nil }
        return try guarded {
            try control.read { s in
                guard try UserIdentities.user(issuer: identity.issuer, subject: identity.subject, container: container,
                                              s) == nil else { return nil }
                return try UserRows.find(email: email, container: container, s)?.user
            }
        }
    }

    /// Links waiting for a proof that one client address may hold, and the server.
    public static let linksPerAddress = 20, linksInAll = 100_000

    /// Keeps an identity that waits for its user to prove `link.user`; THROTTLED past the budget.
    public func beginLink(_ link: PendingLink) throws(StratusError) {
        try control.beginCeremony("links") { s, now in
            try PendingLinks.begin(link, perAddress: Self.linksPerAddress, total: Self.linksInAll, now: now, s)
        }
    }

    /// The link of `token`, taken once, if `binding` is the browser's it was made for and it has not expired.
    public func takeLink(_ token: String, binding: String) throws(StratusError) -> PendingLink? {
        try control.takeCeremony { s, now in try PendingLinks.take(token, binding: binding, now: now, s) }
    }

    /// Links `identity` to `user`, who proved their account; AUTHENTICATION_FAILED when it is another user's.
    private func link(_ identity: IdentityClaims, to user: String,
                      container: ContainerID) throws(StratusError) -> ContainerUser {
        try guarded {
            try control.write { s in
                guard let account = try UserRows.find(user, container: container, s) else {
                    throw StratusError(.authenticationFailed, "the account signed in to is gone")
                }
                let now = WallClock.nowMillis()
                if try UserIdentities.link(issuer: identity.issuer, subject: identity.subject, user: user,
                                           email: identity.email, container: container, at: now, s) {
                    return account
                }
                guard try UserIdentities.user(issuer: identity.issuer, subject: identity.subject,
                                              container: container, s) == user else {
                    throw StratusError(.authenticationFailed, "this identity signs in to another account")
                }
                try UserIdentities.used(issuer: identity.issuer, subject: identity.subject, container: container,
                                        at: now, s)
                return account
            }
        }
    }

    /// How each of the container's users signs in (for the console's Users page).
    public func signInWays(container: ContainerID) throws(StratusError) -> [String: SignInWays] {
        try guarded {
            try control.read { s in
                var ways: [String: SignInWays] = [:]
                for user in try UserRows.withPassword(container: container, s) {
                    ways[user, default: SignInWays()].password = true
                }
                for (user, n) in try PasskeyRows.counts(container: container, s) {
                    ways[user, default: SignInWays()].passkeys = Int(n)
                }
                for (user, issuer) in try UserIdentities.all(container: container, s) {
                    ways[user, default: SignInWays()].issuers.append(issuer)
                }
                return ways
            }
        }
    }

    /// Takes one way of signing in from a user (an issuer's subject, or all their passkeys); refused (BAD_REQUEST)
    /// when it is the account's last way in, or NOT_FOUND when the user has no such way.
    public func unlink(_ way: Unlinked, user: String, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                let passkeys = Int(try PasskeyRows.count(of: user, container: container, s))
                let issuers = try UserIdentities.issuers(of: user, container: container, s)
                let password = try UserRows.withPassword(container: container, s).contains(user)
                let ways = SignInWays(password: password, passkeys: passkeys, issuers: issuers)
                let taken = switch way {
                case .issuer(let i): issuers.filter { $0 == i }.count
                case .passkeys: passkeys
                }
                guard taken > 0 else { throw StratusError(.notFound, "the user does not sign in that way") }
                guard ways.count > taken else {
                    throw StratusError.badRequest("that is the account's last way to sign in: it would be locked out")
                }
                switch way {
                case .issuer(let i): _ = try UserIdentities.unlink(issuer: i, user: user, container: container, s)
                case .passkeys: _ = try PasskeyRows.deleteAll(of: user, container: container, s)
                }
            }
        }
    }

    /// A way an admin takes from a user.
    public enum Unlinked: Sendable { case issuer(String), passkeys }

    /// The issuers a user signs in with (for the console's Users page).
    public func issuers(of user: String, container: ContainerID) throws(StratusError) -> [String] {
        try guarded { try control.read { s in try UserIdentities.issuers(of: user, container: container, s) } }
    }

    private func existing(_ identity: IdentityClaims, container: ContainerID) throws(StratusError) -> ContainerUser? {
        try guarded {
            try control.write { s in
                guard let name = try UserIdentities.user(issuer: identity.issuer, subject: identity.subject,
                                                         container: container, s) else { return nil }
                try UserIdentities.used(issuer: identity.issuer, subject: identity.subject, container: container,
                                        at: WallClock.nowMillis(), s)
                return try UserRows.find(name, container: container, s)
            }
        }
    }

    /// Nil when another sign-in linked the subject meanwhile.
    private func create(_ identity: IdentityClaims, container: ContainerID, givenName: String?,
                        familyName: String?) throws(StratusError) -> ContainerUser? {
        let verified = identity.emailVerified ? identity.email.flatMap { EmailAddress.isValid($0) ? $0 : nil } : nil
        do {
            return try control.write { s -> ContainerUser? in
                if let verified, try UserRows.emailTaken(verified, container: container, s) {
                    throw StratusError(.authenticationFailed, "an account already has this email: "
                                       + "prove that account (sign in to it) once to link this way to it")
                }
                let user = ContainerUser(userRecordName: "_" + Secrets.hex(Secrets.randomBytes(16)),
                                         email: verified ?? "",
                                         firstName: Self.name(givenName ?? identity.givenName),
                                         lastName: Self.name(familyName ?? identity.familyName))
                let now = WallClock.nowMillis()
                try UserRows.insert(user, container: container, passwordHash: "", at: now, s)
                guard try UserIdentities.link(issuer: identity.issuer, subject: identity.subject,
                                              user: user.userRecordName, email: identity.email, container: container,
                                              at: now, s) else { throw Raced() }
                return user
            }
        } catch is Raced {
            return nil
        } catch {
            throw StratusError.from(error)
        }
    }

    private struct Raced: Error {}

    /// A name as kept: trimmed, at most 100 characters.
    private static func name(_ s: String?) -> String {
        String((s ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(100))
    }
}
