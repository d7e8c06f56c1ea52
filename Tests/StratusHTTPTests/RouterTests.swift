import Foundation
import Testing
@testable import StratusHTTP

/// Which route a path takes: literals, captures and a final `*`, first match first, and 405 for a path another
/// method has. Route.match compares literals before it captures anything; these pin what it must still answer.
@Suite struct RouterTests {
    static func router() -> Router {
        var r = Router()
        r.add(.get, "/database/1/{container}/{environment}/notifications/stream") { _ in .text("stream") }
        for op in ["records/query", "users/lookup/email"] {
            r.add(.post, "/database/1/{container}/{environment}/{database}/\(op)") { _ in .text(op) }
        }
        r.add(.post, "/database/1/{container}/{environment}/{database}/*") { _ in .text("other") }
        r.add(.get, "/-/static/*") { _ in .text("static") }
        return r
    }

    static func take(_ method: HTTPMethod, _ path: String) -> (pattern: String, params: [String: String])? {
        guard case .found(let route, let params) = router().match(method, path.split(separator: "/").map(String.init)) else { return nil }
        return ("/" + route.pattern.joined(separator: "/"), params)
    }

    @Test func literalsCapturesAndTheRest() {
        let q = Self.take(.post, "/database/1/iCloud.x/development/public/records/query")
        #expect(q?.pattern.hasSuffix("/records/query") == true && q?.params["database"] == "public" && q?.params["container"] == "iCloud.x")
        #expect(Self.take(.post, "/database/1/c/development/private/users/lookup/email")?.pattern.hasSuffix("users/lookup/email") == true)
        // A path one segment longer or shorter than an operation falls to the catch-all, with what it named.
        let longer = Self.take(.post, "/database/1/c/development/public/records/query/more")
        #expect(longer?.pattern.hasSuffix("/*") == true && longer?.params["*"] == "records/query/more")
        #expect(Self.take(.post, "/database/1/c/development/public/records")?.params["*"] == "records")
        #expect(Self.take(.get, "/database/1/c/development/notifications/stream")?.pattern.hasSuffix("/stream") == true)
        #expect(Self.take(.get, "/-/static/")?.params["*"] == "", "a final * takes an empty rest")
        #expect(Self.take(.get, "/-/static/css/console.css")?.params["*"] == "css/console.css")
        #expect(Self.take(.get, "/elsewhere") == nil)
        if case .methodNotAllowed(let allowed) = Self.router().match(.get, ["database", "1", "c", "development", "public", "records", "query"]) {
            #expect(allowed == [.post, .post])
        } else {
            Issue.record("GET on a POST route is not 405")
        }
    }

    struct Refusal: Error {}

    /// A group's routes run inside its middleware, outermost first; what a route throws becomes the group's
    /// answer inside the middleware (which sees it); a path under no route answers in its group's format by the
    /// longest prefix, and paths under no group in plain text.
    @Test func groupsOwnTheirErrorsAndMiddleware() async throws {
        var r = Router()
        let json = RouteGroup("json", prefixes: ["/api"], errors: { _, path in .json(Data("{\"path\":\"\(path)\"}".utf8), status: .badRequest) },
                              middleware: [
                                  { req, next in var res = try await next(req); res.headers["x-order"] = (res.headers["x-order"] ?? "") + "outer"; return res },
                                  { req, next in var res = try await next(req); res.headers["x-order"] = "inner,"; return res },
                              ])
        r.group(json) {
            $0.add(.get, "/api/ok") { _ in .text("ok") }
            $0.add(.get, "/api/fails") { _ in throw Refusal() }
        }
        r.group(RouteGroup("deeper", prefixes: ["/api/v2"], errors: { _, _ in .text("deeper", status: .notFound) })) { _ in }
        r.add(.get, "/loose") { _ in .text("loose") }

        func run(_ path: String) async throws -> HTTPResponse {
            guard case .found(let route, _) = r.match(.get, path.split(separator: "/").map(String.init)) else { return r.respond(to: HTTPError(.notFound, "none"), path: path) }
            var req = try RequestHeadParser.parse(Array("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)[...], remoteAddress: "127.0.0.1")
            req.parameters = [:]
            return try await route.handler(req)
        }
        let ok = try await run("/api/ok")
        #expect(ok.headers["x-order"] == "inner,outer")
        let failed = try await run("/api/fails")
        #expect(failed.status == .badRequest && String(decoding: failed.body, as: UTF8.self) == #"{"path":"/api/fails"}"#)
        #expect(failed.headers["x-order"] == "inner,outer", "middleware sees the group's error answer")
        #expect(String(decoding: try await run("/api/missing").body, as: UTF8.self).contains("/api/missing"))
        #expect(String(decoding: try await run("/api/v2/x").body, as: UTF8.self) == "deeper", "the longest prefix wins")
        #expect(String(decoding: try await run("/elsewhere").body, as: UTF8.self) == "none\n", "no group: plain text")
        #expect(r.routes.first { $0.pattern == ["api", "ok"] }?.group == "json")
        #expect(r.routes.first { $0.pattern == ["loose"] }?.group == nil)
    }
}
