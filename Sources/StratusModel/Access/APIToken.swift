/// An API token's record (never its secret, which only its creator sees once).
public struct APIToken: Sendable, Hashable {
    public var id: Int64
    public var container: ContainerID
    public var environment: ContainerEnvironment
    public var name: String
    /// Origins allowed to use the token from a browser (canonical `WebOrigin` spellings). Empty means no browser
    /// origin at all: such a token serves servers and scripts, which send no `Origin`, and nothing else.
    public var allowedOrigins: [String]
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var revoked: Bool

    public init(id: Int64, container: ContainerID, environment: ContainerEnvironment, name: String,
                allowedOrigins: [String], createdAt: Int64, revoked: Bool) {
        self.id = id
        self.container = container
        self.environment = environment
        self.name = name
        self.allowedOrigins = allowedOrigins
        self.createdAt = createdAt
        self.revoked = revoked
    }

    /// Whether a request with this `Origin` header may use the token: no header (not a browser), or an origin
    /// listed exactly (scheme, host and port).
    public func allows(origin: String?) -> Bool {
        guard let origin else { return true }
        return allowsBrowser(origin: origin)
    }

    /// Whether a browser page at `origin` may receive what this token grants (CORS, a sign-in callback, a
    /// `postMessage` target). An empty list allows none.
    public func allowsBrowser(origin: String) -> Bool {
        guard !revoked, let o = WebOrigin(origin) else { return false }
        return allowedOrigins.contains(o.description)
    }
}
