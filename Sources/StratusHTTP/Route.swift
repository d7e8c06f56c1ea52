/// A handler for requests matching a method and a path pattern.
public struct Route: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    /// Looks at a request's head (its captures set) before a body larger than `HTTPServerConfig.admissionThreshold`
    /// is read: a refusal is sent at once and the body is never read, so a stranger cannot make the server hold a
    /// large body only to be turned away after. An admitted body is charged to the credential that admitted it.
    /// Whether a request's body may be read (see `BodyAdmission`); what it throws is answered by the route's group,
    /// through the group's middleware, as a refusal.
    public typealias Admission = @Sendable (HTTPRequest) async throws -> BodyAdmission

    public var method: HTTPMethod
    /// Segments: literals, `{name}` captures, or a final `*` capturing the rest.
    public var pattern: [String] { didSet { shape = RouteShape(pattern) } }
    /// What matching and logging need of the pattern, worked out once (see `RouteShape`).
    private(set) var shape: RouteShape
    /// The pattern as a path (`/database/1/{container}/…`): the route metrics and request logs name.
    public var path: String { shape.path }
    /// The largest body this route reads; a larger one is refused with 413 before it is read. The default is what a
    /// route may read without an admission check (`HTTPServerConfig.admissionThreshold`): more must be asked for.
    public var bodyLimit: Int
    public var handler: Handler
    /// Checked before a body is read (see `Admission`); nil admits every request.
    public var admit: Admission?
    /// The name of the `RouteGroup` the route was added in (nil for none); the router sets it.
    public internal(set) var group: String?

    public init(_ method: HTTPMethod, _ path: String, bodyLimit: Int = 64 * 1024, admit: Admission? = nil,
                handler: @escaping Handler) {
        self.method = method
        let pattern = path.split(separator: "/").map(String.init)
        self.pattern = pattern
        shape = RouteShape(pattern)
        self.bodyLimit = bodyLimit
        self.admit = admit
        self.handler = handler
    }

    /// Captures that are credentials in themselves (whoever has the URL may use it): the access log shows their name
    /// (`{token}`) instead of their value.
    public static let capabilityParameters: Set<String> = ["token", "guid", "ticket"]

    /// Whether the pattern captures a capability (see `loggedPath`).
    var capturesCapability: Bool { shape.capturesCapability }

    /// The request's path as the access log shows it: the pattern with its captures filled in, capabilities left out.
    func loggedPath(_ params: [String: String]) -> String {
        "/" + pattern.map { p -> String in
            if p == "*" { return params["*"] ?? "" }
            guard p.hasPrefix("{") && p.hasSuffix("}") else { return p }
            let name = String(p.dropFirst().dropLast())
            return Self.capabilityParameters.contains(name) ? p : PercentDecoding.encodeSegment(params[name] ?? "")
        }.joined(separator: "/")
    }
}
