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
    public var pattern: [String] { didSet { shape = Shape(pattern) } }
    /// What matching and logging need of the pattern, worked out once (see `Shape`).
    private var shape: Shape
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
        shape = Shape(pattern)
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

    /// A request is compared on the literal segments by position and the segment count before anything is captured,
    /// so the many routes it does not take cost it no allocation (every CloudKit operation is its own route); the
    /// one it takes fills its captures by position, with names read out of the pattern once.
    private struct Shape: Sendable {
        var literals: [(Int, String)] = []
        var captures: [(Int, String)] = []
        /// Whether the pattern ends with `*` (the rest of the path).
        var rest: Bool
        var count: Int
        var capturesCapability = false
        var path: String

        init(_ pattern: [String]) {
            rest = pattern.last == "*"
            count = pattern.count
            path = "/" + pattern.joined(separator: "/")
            for (i, p) in pattern.enumerated() where p != "*" {
                if p.hasPrefix("{") && p.hasSuffix("}") {
                    let name = String(p.dropFirst().dropLast())
                    captures.append((i, name))
                    if Route.capabilityParameters.contains(name) { capturesCapability = true }
                } else {
                    literals.append((i, p))
                }
            }
        }
    }

    func match(_ segments: [String]) -> [String: String]? {
        if shape.rest ? segments.count < shape.count - 1 : segments.count != shape.count { return nil }
        for (i, literal) in shape.literals where segments[i] != literal { return nil }
        var params: [String: String] = Dictionary(minimumCapacity: shape.captures.count + (shape.rest ? 2 : 0))
        for (i, name) in shape.captures {
            guard i < segments.count, !segments[i].isEmpty else { return nil }
            params[name] = segments[i]
        }
        if shape.rest {
            let i = shape.count - 1
            params["*"] = segments.dropFirst(i).joined(separator: "/")
            params["*segments"] = String(segments.count - i)
        }
        return params
    }
}
