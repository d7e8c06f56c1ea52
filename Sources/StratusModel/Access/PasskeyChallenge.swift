/// A passkey ceremony under way on the sign-in pages: its random challenge, taken once, bound (like `WebSignIn`) to
/// the browser that asked for it by a cookie's random value; what it is for; and where the session goes.
public struct PasskeyChallenge: Sendable, Equatable {
    public enum Purpose: String, Sendable {
        /// Sign in with a passkey the user has (discoverable: the passkey names its user).
        case signIn = "sign-in"
        /// Create an account with a passkey alone: `user` is the new account's record name (the passkey's user ID).
        case createAccount = "create-account"
        /// Sign in with a passkey to the account page (which then offers to add another).
        case account
        /// Add a passkey to `user`'s account, who proved it just now.
        case add
    }

    public var challenge, binding: String
    public var container: ContainerID
    public var environment: ContainerEnvironment
    public var purpose: Purpose
    public var user: String?
    public var callback, origin: String?
    public var address: String
    /// Milliseconds since 1970.
    public var expiresAt: Int64

    public init(challenge: String, binding: String, container: ContainerID, environment: ContainerEnvironment,
                purpose: Purpose, user: String?, callback: String?, origin: String?, address: String,
                        expiresAt: Int64) {
        (self.challenge, self.binding, self.purpose, self.user) = (challenge, binding, purpose, user)
        (self.container, self.environment) = (container, environment)
        (self.callback, self.origin) = (callback, origin)
        (self.address, self.expiresAt) = (address, expiresAt)
    }

    /// How long a browser may take to answer.
    public static let lifetime: Int64 = 5 * 60 * 1000
}
