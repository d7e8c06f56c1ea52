import StratusHTTP

/// The console's pages inside a container environment, added to the router: each behind the session, the scope
/// (container, environment, database) and, for a form, the session's admission and CSRF check (see
/// `Console.scoped`), so a page's handler receives the signed-in session and its scope.
struct ScopedRoutes {
    let console: Console
    var router: Router
    /// A form's body limit unless its route says otherwise.
    static let formLimit = 64 * 1024

    typealias Handler = @Sendable (Console, HTTPRequest, Console.Session, ConsoleScope) throws -> HTTPResponse

    mutating func get(_ path: String, _ handler: @escaping Handler) {
        let c = console
        router.add(.get, path) { req in try await c.scoped(req) { s, scope in try handler(c, req, s, scope) } }
    }

    mutating func post(_ path: String, limit: Int = formLimit, _ handler: @escaping Handler) {
        let c = console
        router.add(.post, path, bodyLimit: limit, admit: c.admitSession) { req in try await c.scoped(req) { s, scope in try handler(c, req, s, scope) } }
    }
}
