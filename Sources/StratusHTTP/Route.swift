/// A handler for requests matching a method and a path pattern.
public struct Route: Sendable {
    public typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse

    public var method: HTTPMethod
    /// Segments: literals, `{name}` captures, or a final `*` capturing the rest.
    public var pattern: [String]
    /// The largest body this route reads; a larger one is refused with 413 before it is read.
    public var bodyLimit: Int
    public var handler: Handler

    public init(_ method: HTTPMethod, _ path: String, bodyLimit: Int = 1 << 20, handler: @escaping Handler) {
        self.method = method
        self.pattern = path.split(separator: "/").map(String.init)
        self.bodyLimit = bodyLimit
        self.handler = handler
    }

    func match(_ segments: [String]) -> [String: String]? {
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
