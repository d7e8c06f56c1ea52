import StratusHTTP

/// The console's signed-in pages outside a container environment, added to the router: each behind the session
/// (and, for a form, the session's admission and the CSRF check; see `Console.authenticated`). A page about a whole
/// container gets a `ConsoleRequest` scoped to the container's Development environment, as `ScopedRoutes` gives a
/// page inside an environment.
struct SignedInRoutes<Group: ConsolePageGroup> {
    let console: Console
    var router: Router
    /// Form bodies past this are refused before they are read, unless a route says otherwise.
    var formLimit = 16 * 1024

    typealias Handler = @Sendable (Group, HTTPRequest, Console.Session) throws -> HTTPResponse
    typealias ContainerHandler = @Sendable (Group, ConsoleRequest) throws -> HTTPResponse

    mutating func get(_ path: String, need: ConsoleNeed = .read, _ handler: @escaping Handler) {
        let c = console
        router.add(.get, path) { req in
            try await c.authenticated(req, need: need) { s in try handler(Group(console: c), req, s) }
        }
    }

    /// A form outside any container: by default a server-wide change.
    mutating func post(_ path: String, need: ConsoleNeed = .serverWide, _ handler: @escaping Handler) {
        let c = console
        router.add(.post, path, bodyLimit: formLimit, admit: c.admitSession) { req in
            try await c.authenticated(req, form: true, need: need) { s in try handler(Group(console: c), req, s) }
        }
    }

    mutating func containerGet(_ path: String, _ handler: @escaping ContainerHandler) {
        let c = console
        router.add(.get, path) { req in try await Self.containerWide(c, req, need: .read, handler) }
    }

    /// A form about the whole container: a change to it.
    mutating func containerPost(_ path: String, limit: Int, _ handler: @escaping ContainerHandler) {
        let c = console
        router.add(.post, path, bodyLimit: limit, admit: c.admitSession) { req in
            try await Self.containerWide(c, req, need: .changeContainer, handler)
        }
    }

    /// A page about a whole container: scoped to its Development environment, whose header it shows.
    private static func containerWide(_ c: Console, _ req: HTTPRequest, need: ConsoleNeed,
                                      _ handler: @escaping ContainerHandler) async throws -> HTTPResponse {
        var wide = req
        wide.parameters["environment"] = "development"
        let request = wide
        return try await c.scoped(request, need: need) { s, scope in
            try handler(Group(console: c), ConsoleRequest(request: request, session: s, scope: scope))
        }
    }
}

extension ConsolePageGroup {
    /// The group's signed-in routes outside a container environment, added to the router by `register`.
    static func addSignedIn(to router: inout Router, console: Console,
                            _ register: (inout SignedInRoutes<Self>) -> Void) {
        var routes = SignedInRoutes<Self>(console: console, router: router)
        register(&routes)
        router = routes.router
    }
}
