/// The whole URL space in one table, in groups (see `RouteGroup`). A path that matches with another method answers
/// 405; a path no route takes answers 404 — both in the format of the group the path is under.
public struct Router: Sendable {
    public private(set) var routes: [Route] = []
    /// What matching reads of each route, apart from the routes themselves: reading `routes[i]` to match it copied
    /// the whole route (its handlers, pattern and group name retained and released) for each of the hundreds a
    /// request passed.
    private var shapes: [RouteShape] = []
    private var methods: [HTTPMethod] = []
    /// The routes a path of n segments can match (n < `indexedSegments`), in the order they were added; longer
    /// paths try every route.
    private var bySegmentCount: [[Int]] = Array(repeating: [], count: Router.indexedSegments)
    static let indexedSegments = 32
    public private(set) var groups: [RouteGroup] = []
    /// The group routes are added to now (set by `group(_:_:)`); nil outside any group.
    private var current: RouteGroup?
    /// The errors of paths under no group: plain text.
    private let fallback: RouteGroup.Errors

    public init(fallback: @escaping RouteGroup.Errors = Router.plainErrors) { self.fallback = fallback }

    /// Adds the routes `build` registers to `group`: their handlers run inside the group's middleware and their
    /// errors take its format. Registration code stays unaware of the group it is in.
    public mutating func group(_ group: RouteGroup, _ build: (inout Router) -> Void) {
        let outer = current
        groups.append(group)
        current = group
        build(&self)
        current = outer
    }

    public mutating func add(_ route: Route) {
        var r = route
        if let g = current {
            r.handler = g.wrap(r.handler)
            r.group = g.name
            if r.admit == nil { r.admit = g.admit }
            r.admit = r.admit.map(g.wrap(admission:))
        }
        for n in 0..<Self.indexedSegments where r.shape.fits(segmentCount: n) { bySegmentCount[n].append(routes.count) }
        routes.append(r)
        shapes.append(r.shape)
        methods.append(r.method)
    }

    public mutating func add(_ method: HTTPMethod, _ path: String, bodyLimit: Int = 64 * 1024,
                             admit: Route.Admission? = nil, _ handler: @escaping Route.Handler) {
        add(Route(method, path, bodyLimit: bodyLimit, admit: admit, handler: handler))
    }

    public enum Match: Sendable {
        case found(Route, [String: String])
        case methodNotAllowed([HTTPMethod])
        case notFound
    }

    public func match(_ method: HTTPMethod, _ segments: [String]) -> Match {
        if segments.count < Self.indexedSegments { return match(method, segments, among: bySegmentCount[segments.count]) }
        return match(method, segments, among: routes.indices)
    }

    /// The first of `candidates` (indices in the order routes were added) whose pattern and method take the request;
    /// only the route found is copied out of `routes`.
    private func match(_ method: HTTPMethod, _ segments: [String], among candidates: some Sequence<Int>) -> Match {
        var allowed: [HTTPMethod] = []
        for i in candidates {
            guard let params = shapes[i].match(segments) else { continue }
            let m = methods[i]
            if m == method || (method == .head && m == .get) { return .found(routes[i], params) }
            allowed.append(m)
        }
        return allowed.isEmpty ? .notFound : .methodNotAllowed(allowed)
    }

    /// The group a path is under (the longest matching prefix), nil for none.
    public func group(for segments: [String]) -> RouteGroup? {
        var best: (RouteGroup, Int)?
        for g in groups {
            if let n = g.matchLength(segments), n > (best?.1 ?? -1) { best = (g, n) }
        }
        return best?.0
    }

    /// An error as the group of `path` answers it (plain text under no group).
    public func respond(to error: any Error, path: String) -> HTTPResponse {
        let segments = path.split(separator: "?",
                                  maxSplits: 1).first.map { $0.split(separator: "/").map(String.init) } ?? []
        return (group(for: segments)?.errors ?? fallback)(error, path)
    }

    /// Plain text: an HTTP-layer error's message and status; anything else a bare 500 (its detail is not a client's).
    public static let plainErrors: RouteGroup.Errors = { error, _ in
        if let e = error as? HTTPError {
            var r = HTTPResponse.text(e.message + "\n", status: e.status)
            if let after = e.retryAfter { r.headers["retry-after"] = String(after) }
            return r
        }
        return .text("internal server error\n", status: .internalServerError)
    }
}
