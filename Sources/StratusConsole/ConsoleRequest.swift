import StratusHTTP

/// One request to a console page inside a container environment: the request, the signed-in session and the
/// scope (container, environment, database) the URL names, made once by the page's route group (`ScopedRoutes`,
/// after the session, CSRF and scope checks in `Console.scoped`) and handed to the page whole. What the
/// administrator may do there belongs here too, beside the session it comes with.
struct ConsoleRequest: Sendable {
    let request: HTTPRequest
    let session: Console.Session
    let scope: ConsoleScope
}
