/// A web sign-in with a provider under way (the authorization-code flow): begun when the sign-in page's button is
/// followed, ended by the provider's callback, once. The `state` (in the URL), the nonce (in the identity token)
/// and the PKCE verifier (sent only to the provider's token endpoint) are Stratus's own random values; `binding`
/// is the random value of a cookie of the browser that began it, so that a callback from another browser (one a
/// stranger's link sent there) signs no one in. `callback` and `origin` are where the session goes, as the sign-in
/// page's own.
public struct WebSignIn: Sendable, Equatable {
    public var state, binding: String
    public var container: ContainerID
    public var environment: ContainerEnvironment
    public var provider, nonce, verifier: String
    public var callback, origin: String?
    /// The client address that began it, whose sign-ins under way are capped.
    public var address: String
    /// Milliseconds since 1970.
    public var expiresAt: Int64

    public init(state: String, binding: String, container: ContainerID, environment: ContainerEnvironment,
                provider: String, nonce: String, verifier: String, callback: String?, origin: String?,
                address: String, expiresAt: Int64) {
        // The secrets, what it signs in to, where the session goes, and its budget.
        (self.state, self.binding, self.nonce, self.verifier) = (state, binding, nonce, verifier)
        (self.container, self.environment, self.provider) = (container, environment, provider)
        (self.callback, self.origin) = (callback, origin)
        (self.address, self.expiresAt) = (address, expiresAt)
    }

    /// How long a sign-in may take at the provider.
    public static let lifetime: Int64 = 10 * 60 * 1000
}
