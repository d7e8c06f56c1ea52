/// An API token's record (never its secret, which only its creator sees once).
public struct APIToken: Sendable, Hashable {
    public var id: Int64
    public var container: ContainerID
    public var environment: Environment
    public var name: String
    /// Origins allowed to use the token from a browser; empty means any.
    public var allowedOrigins: [String]
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var revoked: Bool

    public init(id: Int64, container: ContainerID, environment: Environment, name: String, allowedOrigins: [String], createdAt: Int64, revoked: Bool) {
        self.id = id
        self.container = container
        self.environment = environment
        self.name = name
        self.allowedOrigins = allowedOrigins
        self.createdAt = createdAt
        self.revoked = revoked
    }

    public func allows(origin: String?) -> Bool {
        guard let origin, !allowedOrigins.isEmpty else { return true }
        return allowedOrigins.contains(origin)
    }
}
