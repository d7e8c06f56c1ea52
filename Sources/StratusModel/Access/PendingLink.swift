/// A provider's identity waiting to be linked to the account that already has its verified email: made when such a
/// sign-in comes back from the provider, ended once its user proves that account (its password or a passkey) in the
/// same browser. Signing in with a provider never takes an account over: until the proof, the identity leads
/// nowhere. `token` names it in the page's form; `binding` is the random value of a cookie of the browser it was
/// made for; `user` is the account to prove.
public struct PendingLink: Sendable, Equatable {
    public var token, binding: String
    public var container: ContainerID
    public var environment: ContainerEnvironment
    /// The provider's name in Stratus (for the page) and the identity it vouched for.
    public var provider: String
    public var identity: IdentityClaims
    public var user: String
    /// Where the session goes once linked, as the sign-in's own.
    public var callback, origin: String?
    /// The client address it was made for, whose links under way are capped.
    public var address: String
    /// Milliseconds since 1970.
    public var expiresAt: Int64

    public init(token: String, binding: String, container: ContainerID, environment: ContainerEnvironment,
                provider: String, identity: IdentityClaims, user: String, callback: String?, origin: String?,
                address: String, expiresAt: Int64) {
        (self.token, self.binding) = (token, binding)
        (self.container, self.environment, self.provider) = (container, environment, provider)
        (self.identity, self.user) = (identity, user)
        (self.callback, self.origin) = (callback, origin)
        (self.address, self.expiresAt) = (address, expiresAt)
    }

    /// How long its user has to prove the account.
    public static let lifetime: Int64 = 10 * 60 * 1000
}
