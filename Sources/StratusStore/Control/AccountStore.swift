import Crypto
import Foundation
import StratusModel

/// A container's users (accounts that sign in to apps) and their web auth tokens, kept in the control database.
/// Passwords and tokens are stored hashed.
public final class AccountStore: Sendable {
    let control: any SQLDatabase
    let registry: EnvironmentRegistry
    /// Every signed-in API request authenticates its web auth token; this keeps that from being a trip to the
    /// control database each time. Cleared by every sign-out here, and by other servers' (see `CacheInvalidation`).
    let webTokenCache = ExpiringCache<WebTokenKey, WebAuthSession>()

    /// A web auth token is looked up for one container environment.
    struct WebTokenKey: Hashable, Sendable {
        let digest: SHA256Digest
        let container: ContainerID
        let environment: ContainerEnvironment
    }

    init(control: any SQLDatabase, registry: EnvironmentRegistry) {
        self.control = control
        self.registry = registry
    }

    // MARK: users

    public func createUser(container: ContainerID, email: String, password: String, firstName: String = "",
                           lastName: String = "",
                           discoverable: Bool = false) throws(StratusError) -> ContainerUser {
        guard try registry.containerExists(container) else { throw StratusError(.notFound,
                "container \(container) does not exist") }
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isValid(email) else { throw .badRequest("'\(email.prefix(100))' is not an email address") }
        guard password.count >= 8, password.utf8.count <= 1024 else { throw .badRequest("a password needs 8 to 1024 characters") }
        let now = WallClock.nowMillis()
        let user = ContainerUser(userRecordName: "_" + Secrets.hex(Secrets.randomBytes(16)), email: email,
                                 firstName: firstName, lastName: lastName,
                                 discoverable: discoverable, discoverabilityChangedAt: discoverable ? now : nil)
        let hash = try guarded { try Secrets.hashPassword(password) }
        try guarded {
            try control.write { s in
                if try UserRows.emailTaken(email, container: container, s) { throw StratusError(.exists,
                        "a user with this email already exists") }
                try UserRows.insert(user, container: container, passwordHash: hash, at: now, s)
            }
        }
        // Shares that invited this address before it had an account are now its own to accept.
        for e in ContainerEnvironment.allCases { try registry.environment(container,
                e).sharing.claimInvitations(email: email, user: user.userRecordName) }
        return user
    }

    /// Creates an account unless the address already has one, costing a password hash either way, so that neither
    /// the answer nor its time tells whether the address was known. Whether an account was created.
    @discardableResult
    public func signUp(container: ContainerID, email: String, password: String, firstName: String = "",
                       lastName: String = "",
                       discoverable: Bool = false) throws(StratusError) -> Bool {
        do {
            _ = try createUser(container: container, email: email, password: password, firstName: firstName,
                               lastName: lastName, discoverable: discoverable)
            return true
        } catch where error.code == .exists {
            return false
        }
    }

    /// The ways new accounts may be made in the container (`SignUpWay.defaults` until the operator chooses).
    public func signUpWays(container: ContainerID) throws(StratusError) -> Set<SignUpWay> {
        let stored = try guarded { try control.read { s in try ContainerRows.signUp(container, s) } }
        guard let stored else { return SignUpWay.defaults }
        return try SignUpWay.parse(stored)
    }

    public func setSignUpWays(_ ways: Set<SignUpWay>, container: ContainerID) throws(StratusError) {
        try guarded {
            try control.write { s in
                let list = ways.sorted().map(\.rawValue).joined(separator: ",")
                guard try ContainerRows.setSignUp(list, container, s) else {
                    throw StratusError(.notFound, "container \(container) does not exist")
                }
            }
        }
    }

    /// The user's answer to "may others who know my email find me?", recorded with its time.
    public func setDiscoverable(container: ContainerID, userRecordName: String,
                                _ discoverable: Bool) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard try UserRows.setDiscoverable(discoverable, user: userRecordName, container: container,
                                                   at: WallClock.nowMillis(), s) else {
                    throw StratusError(.notFound, "no such user")
                }
            }
        }
    }

    /// The email of the Development one-click test user, which anyone can become: it is never discoverable and
    /// discovers nobody.
    public static func testUserEmail(_ container: ContainerID) -> String { "test-user@\(container.rawValue)" }

    /// The container's Development test user, made the first time it is asked for (the sign-in page's "continue as a
    /// test user", the console's "Act as").
    public func testUser(container: ContainerID) throws(StratusError) -> ContainerUser {
        let email = Self.testUserEmail(container)
        if let u = try user(container: container, email: email) { return u }
        do {
            return try createUser(container: container, email: email, password: Secrets.randomPassword(),
                                  firstName: "Test", lastName: "User")
        } catch where error.code == .exists {
            // Made meanwhile by another request.
            guard let u = try user(container: container, email: email) else { throw error }
            return u
        }
    }

    public func users(container: ContainerID) throws(StratusError) -> [ContainerUser] {
        try guarded {
            try control.read { s in try UserRows.all(container: container, s) }
        }
    }

    /// When each user of the container was created and last signed in (the newest web auth token they hold; nil when
    /// none is left), by user record name: the console's Users page.
    public func userActivity(container: ContainerID) throws(StratusError) -> [String: (created: Int64,
            lastSignIn: Int64?)] {
        try guarded {
            try control.read { s in
                let rows = try UserRows.activity(container: container, s).map { ($0.user, (created: $0.created,
                        lastSignIn: $0.lastSignIn)) }
                return Dictionary(rows, uniquingKeysWith: { a, _ in a })
            }
        }
    }

    public func user(container: ContainerID, userRecordName: String) throws(StratusError) -> ContainerUser? {
        try guarded {
            try control.read { s in try UserRows.find(userRecordName, container: container, s) }
        }
    }

    /// The user an operator names: by email address (anything with an `@`) or by user record name.
    public func user(container: ContainerID, named name: String) throws(StratusError) -> ContainerUser? {
        name.contains("@") ? try user(container: container, email: name) : try user(container: container,
                userRecordName: name)
    }

    public func user(container: ContainerID, email: String) throws(StratusError) -> ContainerUser? {
        try guarded {
            try control.read { s in try UserRows.find(email: email, container: container, s)?.user }
        }
    }

    /// The user whose email and password these are, or nil. Unknown emails cost a hash too, so timing does not tell.
    public func authenticateUser(container: ContainerID, email: String,
                                 password: String) throws(StratusError) -> ContainerUser? {
        let found: (ContainerUser, String)? = try guarded {
            try control.read { s in try UserRows.find(email: email, container: container, s) }
        }
        guard let (user, hash) = found else {
            _ = Secrets.verifyPassword(password, hash: AccountStore.decoyHash)
            return nil
        }
        return Secrets.verifyPassword(password, hash: hash) ? user : nil
    }

    static let decoyHash = (try? Secrets.hashPassword("decoy password")) ?? ""

    /// The time a password check takes, spent where there is no account to check against (a share link that
    /// is nobody's): an answer that came sooner would tell the link apart.
    public static func spendPasswordCheck(_ password: String) { _ = Secrets.verifyPassword(password, hash: decoyHash) }

    // MARK: web auth tokens

    /// CloudKit's lifetimes: 30 minutes, or 14 days when the user asked to stay signed in.
    public static let shortSession: Int64 = 30 * 60 * 1000
    public static let longSession: Int64 = 14 * 24 * 3600 * 1000

    /// Web auth tokens one user keeps in one container: a sign-in past it ends the oldest (a script signing in in a
    /// loop would otherwise make rows without end, two weeks each with "keep me signed in").
    public static let maximumWebTokensPerUser = 512

    /// A web auth token for one user in one container environment (CloudKit's are per environment too): the first
    /// of a new family (see `WebAuthSession`).
    public func createWebAuthToken(container: ContainerID, environment: ContainerEnvironment, userRecordName: String,
                                   lifetime: Int64 = AccountStore.shortSession) throws(StratusError) -> String {
        let token = Data(Secrets.randomBytes(32)).base64EncodedString()
        let now = WallClock.nowMillis()
        let hash = Secrets.tokenHash(token)
        try guarded {
            try control.write { s in
                try WebTokens.insertFirst(hash, container: container, environment: environment, user: userRecordName,
                                          expiresAt: now + lifetime,
                                          keep: Self.maximumWebTokensPerUser, now: now, s)
            }
        }
        return token
    }

    /// The session a web auth token signs in; nil if unknown, expired, or another container's or environment's.
    public func authenticateWebAuthToken(_ token: String, container: ContainerID,
                                         environment: ContainerEnvironment) throws(StratusError) -> WebAuthSession? {
        guard token.utf8.count <= 512 else { return nil }
        let digest = Secrets.digest(token)
        let key = WebTokenKey(digest: digest, container: container, environment: environment)
        let session: WebAuthSession?
        if let hit = webTokenCache.value(for: key) { session = hit } else {
            let hash = Secrets.hex(digest)
            session = try guarded {
                try control.read { s in try WebTokens.session(hash, container: container, environment: environment, s) }
            }
            if let session { webTokenCache.set(session, for: key) }
        }
        guard let session, session.expiresAt > WallClock.nowMillis() else { return nil }
        return session
    }

    /// The token `token` rotates to, of its family and as long-lived as it was made: the same one however many
    /// requests ask (it is derived from the token under the environment's secret, and its row is made once), so a
    /// session adds one token per half-life, not one per request. Nil when `token` is no longer signed in (its
    /// family ended meanwhile: a sign-out is never undone by a request that was in flight).
    public func rotateWebAuthToken(_ token: String, container: ContainerID, environment: ContainerEnvironment,
                                   lifetime: Int64) throws(StratusError) -> String? {
        let successor = try registry.environment(container, environment).core.signer.successor(of: token)
        let now = WallClock.nowMillis()
        let made: Bool = try guarded {
            try control.write { s in
                // Made from the row of the token it succeeds, in one statement: if that row is gone (signed out), so is
                // this.
                try WebTokens.insertSuccessor(Secrets.tokenHash(successor), of: Secrets.tokenHash(token),
                                              expiresAt: now + lifetime, now: now, s)
            }
        }
        return made ? successor : nil
    }

    /// Signs one session out: every token of its family (the one given and those it rotated to or from), and the
    /// web courier tokens and devices the session made, stop working at once; the user's open notification
    /// streams end at their next wake.
    public func revokeWebAuthToken(_ token: String, container only: ContainerID? = nil) throws(StratusError) {
        let hash = Secrets.tokenHash(token)
        let owner: (ContainerID, ContainerEnvironment, String, String)? = try guarded {
            try control.write { s in
                guard let row = try WebTokens.owner(hash, s), only == nil || row.container == only else { return nil }
                try WebTokens.deleteFamily(row.family, s)
                return (row.container, row.environment, row.user, row.family)
            }
        }
        sessionsChanged()
        guard let (container, environment, user, family) = owner else { return }
        let env = try registry.environment(container, environment)
        try env.notifications.revokeCourierTokens(user: user, madeWith: family)
        // The devices this session registered stop hearing the user's notifications: they are signed out.
        try env.apns.removeAPNsDevices(user: user, madeWith: family)
        registry.bell.ring([env.notifications.bellKey(user)])
    }

    /// Whether the session (token family) `family` is still signed in: any of its tokens is live.
    public func webSessionIsLive(family: String) throws(StratusError) -> Bool {
        try guarded { try control.read { s in try WebTokens.familyIsLive(family, now: WallClock.nowMillis(), s) } }
    }

    /// Signs a user out everywhere: every web auth token and web courier token of theirs in the container, in
    /// both environments. Returns how many web auth tokens there were.
    @discardableResult
    public func signOutEverywhere(container: ContainerID, userRecordName: String) throws(StratusError) -> Int {
        let n = try guarded {
            try control.write { s in try WebTokens.deleteAll(user: userRecordName, container: container, s) }
        }
        sessionsChanged()
        for e in ContainerEnvironment.allCases {
            let env = try registry.environment(container, e)
            try env.notifications.revokeCourierTokens(user: userRecordName, madeWith: nil)
            try env.apns.removeAPNsDevices(user: userRecordName, madeWith: nil)
            registry.bell.ring([env.notifications.bellKey(userRecordName)])
        }
        return n
    }

    /// Forgets cached web auth tokens after a sign-out, here and on every other server on the same PostgreSQL
    /// database, so that it takes effect on the next request.
    func sessionsChanged() {
        webTokenCache.removeAll()
        registry.invalidation.publish("credentials")
    }
}
