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
}
