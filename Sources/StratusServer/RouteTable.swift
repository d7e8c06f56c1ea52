import Foundation
import StratusAPI
import StratusConsole
import StratusHTTP
import StratusModel
import StratusStore

/// The server's URL space, in the groups that decide how it answers (see `RouteGroup`). To follow a request:
/// its group here (format of errors, middleware), its route in the group's `register` (CloudKitAPI, Console,
/// AdminEndpoints), the handler, and the store call the handler makes.
///
/// | group     | paths                                   | errors                    | middleware            |
/// |-----------|-----------------------------------------|---------------------------|-----------------------|
/// | cloudkit  | /database/1, /device/1, /auth/1         | CloudKit's envelope (a    | CORS by the API token |
/// |           |                                         | refused sign-in: its form)|                       |
/// | handout   | /-/assets, /-/webcourier                | CloudKit's envelope       | (capability URLs)     |
/// | share     | /share                                  | an HTML page              |                       |
/// | console   | /console                                | the console's error page  |                       |
/// | admin     | /-/admin                                | `{"reason"}`              | Bearer token          |
/// | metrics   | /-/metrics                              | plain text                | Bearer or loopback    |
/// | site      | everything else (/, /-/health, static)  | plain text                |                       |
enum RouteTable {
    static func build(config: ServerConfig, api: CloudKitAPI, console: Console, admin: AdminEndpoints,
                      metrics: ServerMetrics) -> Router {
        var router = Router()
        router.group(RouteGroup("cloudkit", prefixes: ["/database/1", "/device/1", "/auth/1"],
                                errors: CloudKitAPI.errors, middleware: [api.cors])) {
            api.register(&$0)
        }
        router.group(RouteGroup("handout", prefixes: ["/-/assets", "/-/webcourier"], errors: ErrorEnvelope.errors)) {
            api.registerHandedOutRoutes(&$0)
        }
        router.group(RouteGroup("share", prefixes: ["/share"], errors: api.pageErrors)) {
            api.registerSharePages(&$0)
        }
        router.group(RouteGroup("console", prefixes: ["/console"], errors: console.errors)) {
            console.register(&$0)
        }
        router.group(RouteGroup("admin", prefixes: ["/-/admin"], errors: AdminEndpoints.errors,
                                middleware: [admin.bearer],
                                    admit: admin.admitBody)) {
            admin.register(&$0)
        }
        router.group(RouteGroup("metrics", prefixes: ["/-/metrics"], errors: Router.plainErrors,
                                middleware: [metricsGuard(token: config.metricsToken)])) {
            $0.add(.get, "/-/metrics") { _ in
                let text = try await BlockingWork.shared.run { metrics.render() }
                var r = HTTPResponse.text(text)
                r.headers["content-type"] = "text/plain; version=0.0.4; charset=utf-8"
                return r
            }
        }
        let files = StaticFiles(root: config.publicDirectory.path)
        router.group(RouteGroup("site", prefixes: [""], errors: Router.plainErrors)) {
            $0.add(.get, "/-/health") { _ in .json(Data("{\"status\":\"ok\"}".utf8)) }
            $0.add(.get, "/-/static/*") { req in files.response(for: Array(req.pathSegments.dropFirst(2)),
                                                                request: req) }
            $0.add(.get, "/") { _ in .redirect(to: "/console/", status: .found) }
        }
        return router
    }

    /// `/-/metrics`: with a token configured, for its bearer only; without one, for the loopback interface only
    /// (behind a trusted proxy, the forwarded client address decides, so the proxy does not open it to the world).
    static func metricsGuard(token: String?) -> RouteGroup.Middleware {
        { req, next in
            if let token {
                guard Secrets.constantTimeEquals(req.bearerToken, token) else {
                    var r = HTTPResponse.text("metrics need Authorization: Bearer <the token of --metrics-token-file>\n", status: .unauthorized)
                    r.headers["www-authenticate"] = "Bearer"
                    return r
                }
            } else if !req.isLoopback {
                return .text("metrics are answered on loopback only; start the server with --metrics-token-file to scrape it from elsewhere\n", status: .forbidden)
            }
            return try await next(req)
        }
    }
}
