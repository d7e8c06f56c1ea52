import StratusHTTP

/// The console's pages inside a container environment, added to the router: each behind the session, the scope
/// (container, environment, database), the role its `ConsoleNeed` asks and, for a form, the session's admission
/// and CSRF check (see `Console.scoped`), so a page's handler receives its page group and the request with its
/// session and scope
/// (`ConsoleRequest`).
struct ScopedRoutes<Group: ScopedPageGroup> {
    let console: Console
    var router: Router

    typealias Handler = @Sendable (Group, ConsoleRequest) throws -> HTTPResponse

    mutating func get(_ path: String, _ handler: @escaping Handler) {
        let c = console
        router.add(.get, path) { req in
            try await c.scoped(req, need: .read) { s, scope in
                try handler(Group(console: c), ConsoleRequest(request: req, session: s, scope: scope))
            }
        }
    }

    /// A form, with a body of at most 64 KiB unless its route says otherwise; by default a change in the page's
    /// environment.
    mutating func post(_ path: String, limit: Int = 64 * 1024, need: ConsoleNeed = .change,
                       _ handler: @escaping Handler) {
        let c = console
        router.add(.post, path, bodyLimit: limit, admit: c.admitSession) { req in
            try await c.scoped(req, need: need) { s, scope in
                try handler(Group(console: c), ConsoleRequest(request: req, session: s, scope: scope))
            }
        }
    }
}
