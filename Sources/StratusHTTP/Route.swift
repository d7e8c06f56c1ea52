/// A handler for requests matching a method and a path pattern.
public struct Route: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    /// Looks at a request's head (its captures set) before a body larger than `HTTPServerConfig.admissionThreshold`
    /// is read: a refusal is sent at once and the body is never read, so a stranger cannot make the server hold a
    /// large body only to be turned away after.
    public typealias Admission = @Sendable (HTTPRequest) async -> HTTPResponse?

    public var method: HTTPMethod
    /// Segments: literals, `{name}` captures, or a final `*` capturing the rest.
    public var pattern: [String] { didSet { shape = Self.shape(of: pattern) } }
    /// The literal segments by position, whether the pattern ends with `*`, and how many segments it has: a
    /// request is compared on these before anything is captured, so the many routes it does not take cost it no
    /// allocation (every CloudKit operation is its own route).
    private var shape: (literals: [(Int, String)], rest: Bool, count: Int)
    /// The largest body this route reads; a larger one is refused with 413 before it is read.
    public var bodyLimit: Int
    public var handler: Handler
    /// Checked before a body is read (see `Admission`); nil admits every request.
    public var admit: Admission?
    /// The name of the `RouteGroup` the route was added in (nil for none); the router sets it.
    public internal(set) var group: String?

    public init(_ method: HTTPMethod, _ path: String, bodyLimit: Int = 1 << 20, admit: Admission? = nil, handler: @escaping Handler) {
        self.method = method
        let pattern = path.split(separator: "/").map(String.init)
        self.pattern = pattern
        shape = Self.shape(of: pattern)
        self.bodyLimit = bodyLimit
        self.admit = admit
        self.handler = handler
    }

    /// Captures that are credentials in themselves (whoever has the URL may use it): the access log shows their name
    /// (`{token}`) instead of their value.
    public static let capabilityParameters: Set<String> = ["token", "guid", "ticket"]

    /// Whether the pattern captures a capability (see `loggedPath`).
    var capturesCapability: Bool { pattern.contains { $0.hasPrefix("{") && Self.capabilityParameters.contains(String($0.dropFirst().dropLast())) } }

    /// The request's path as the access log shows it: the pattern with its captures filled in, capabilities left out.
    func loggedPath(_ params: [String: String]) -> String {
        "/" + pattern.map { p -> String in
            if p == "*" { return params["*"] ?? "" }
            guard p.hasPrefix("{") && p.hasSuffix("}") else { return p }
            let name = String(p.dropFirst().dropLast())
            return Self.capabilityParameters.contains(name) ? p : PercentDecoding.encodeSegment(params[name] ?? "")
        }.joined(separator: "/")
    }

    private static func shape(of pattern: [String]) -> (literals: [(Int, String)], rest: Bool, count: Int) {
        let rest = pattern.last == "*"
        let literals = pattern.enumerated().filter { !($0.element == "*" || ($0.element.hasPrefix("{") && $0.element.hasSuffix("}"))) }
        return (literals.map { ($0.offset, $0.element) }, rest, pattern.count)
    }

    func match(_ segments: [String]) -> [String: String]? {
        if shape.rest ? segments.count < shape.count - 1 : segments.count != shape.count { return nil }
        for (i, literal) in shape.literals where segments[i] != literal { return nil }
        var params: [String: String] = [:]
        for (i, p) in pattern.enumerated() {
            if p == "*" {
                params["*"] = segments.dropFirst(i).joined(separator: "/")
                params["*segments"] = String(segments.count - i)
                return params
            }
            guard i < segments.count else { return nil }
            if p.hasPrefix("{") && p.hasSuffix("}") {
                guard !segments[i].isEmpty else { return nil }
                params[String(p.dropFirst().dropLast())] = segments[i]
            } else if p != segments[i] {
                return nil
            }
        }
        return segments.count == pattern.count ? params : nil
    }
}
