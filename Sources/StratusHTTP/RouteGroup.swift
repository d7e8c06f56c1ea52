/// A part of the URL space that answers one way: the CloudKit API in CloudKit's JSON envelope, the console in its
/// HTML pages, the admin endpoints in their JSON. A group owns two things for every route registered in it:
/// - **its errors**: whatever a route throws, and whatever the HTTP layer refuses on a path under the group before
///   any route runs (a malformed head, a body over the limit, a path no route takes, a timeout), becomes a response
///   here, in the group's format. No handler and no layer below guesses a format from the path.
/// - **its middleware**: what every request of the group passes through, outermost first (CORS for the API,
///   Bearer checks for the admin endpoints). A route's thrown error is turned into the group's response *inside*
///   the middleware, so middleware sees every answer, errors included.
///
/// Groups are found by their literal path prefixes; the longest prefix that matches a path wins, so a group with
/// the empty prefix is the fallback for the rest of the site.
public struct RouteGroup: Sendable {
    /// Turns an error into the group's response; `path` is for the log line of an internal error.
    public typealias Errors = @Sendable (_ error: any Error, _ path: String) -> HTTPResponse
    /// Runs around a route's handler: call `next` to go on, or answer without it.
    public typealias Middleware = @Sendable (_ request: HTTPRequest, _ next: Route.Handler) async throws -> HTTPResponse

    /// A short name for tests and logs: `cloudkit`, `console`, `admin`.
    public let name: String
    /// The literal segments the group's paths start with (`["database", "1"]`); `[]` is every path.
    public let prefixes: [[String]]
    public let errors: Errors
    public let middleware: [Middleware]
    /// The group's check before a large body is read, for its routes that have none of their own: the credentials
    /// that can be checked from the head (a Bearer token, a session cookie) are, so that a stranger's body is never
    /// read only to be refused after.
    public let admit: Route.Admission?

    public init(_ name: String, prefixes: [String], errors: @escaping Errors, middleware: [Middleware] = [],
                admit: Route.Admission? = nil) {
        self.admit = admit
        self.name = name
        self.prefixes = prefixes.map { $0.split(separator: "/").map(String.init) }
        self.errors = errors
        self.middleware = middleware
    }

    /// How many leading segments of `segments` the group's longest matching prefix covers; nil when none matches.
    func matchLength(_ segments: [String]) -> Int? {
        var best: Int?
        for p in prefixes where p.count <= segments.count && zip(p, segments).allSatisfy({ $0 == $1 }) {
            best = max(best ?? -1, p.count)
        }
        return best
    }

    /// The admission as the router runs it: what it throws becomes a refusal answered as a handler's error is, in
    /// the group's format and through its middleware (so a refused CloudKit request still carries CORS headers).
    func wrap(admission: @escaping Route.Admission) -> Route.Admission {
        let group = self
        return { req in
            do { return try await admission(req) } catch {
                let failure = error
                return .refused(try await group.wrap({ _ in throw failure })(req))
            }
        }
    }

    /// The handler as the router runs it: errors answered in the group's format, inside the middleware.
    func wrap(_ handler: @escaping Route.Handler) -> Route.Handler {
        let errors = self.errors
        var chain: Route.Handler = { req in
            do { return try await handler(req) } catch { return errors(error, req.rawPath) }
        }
        for m in middleware.reversed() {
            let next = chain
            chain = { req in try await m(req, next) }
        }
        return chain
    }
}
