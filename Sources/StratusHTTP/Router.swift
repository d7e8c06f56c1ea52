/// The whole URL space in one table. A path that matches with another method answers 405.
public struct Router: Sendable {
    public private(set) var routes: [Route] = []
    public init() {}

    public mutating func add(_ route: Route) { routes.append(route) }

    public mutating func add(_ method: HTTPMethod, _ path: String, bodyLimit: Int = 1 << 20, admit: Route.Admission? = nil, _ handler: @escaping Route.Handler) {
        routes.append(Route(method, path, bodyLimit: bodyLimit, admit: admit, handler: handler))
    }

    public enum Match: Sendable {
        case found(Route, [String: String])
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    public func match(_ method: HTTPMethod, _ segments: [String]) -> Match {
        var allowed: [HTTPMethod] = []
        for r in routes {
            guard let params = r.match(segments) else { continue }
            if r.method == method || (method == .head && r.method == .get) { return .found(r, params) }
            allowed.append(r.method)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }
}
