import Testing
@testable import StratusHTTP

/// A session's cookie is found among others however a browser spaces them, and nothing else passes for it.
@Suite struct CookieTests {
    func request(_ cookies: String...) throws -> HTTPRequest {
        try HTTPRequest(method: .get, target: "/", headers: HTTPHeaders(cookies.map { ("Cookie", $0) }))
    }

    @Test func theNamedCookieIsFoundAmongOthers() throws {
        let r = try request("theme=dark; stratus_session=abc123;  other = x ", "stratus_session=second")
        #expect(r.cookie("stratus_session") == "abc123")
        #expect(r.cookie("other") == "x")
        #expect(r.cookie("theme") == "dark")
        #expect(r.cookie("missing") == nil)
        #expect(r.cookie("stratus") == nil)
    }

    @Test func aValueMayHoldEqualsSignsAndBeEmpty() throws {
        let r = try request("a=b=c;;empty=;\tpadded\t=\tv\t")
        #expect(r.cookie("a") == "b=c")
        #expect(r.cookie("empty") == "")
        #expect(r.cookie("padded") == "v")
        #expect(try request("novalue; x=1").cookie("novalue") == nil)
        #expect(try request().cookie("x") == nil)
    }

    @Test func laterHeadersAreLookedIn() throws {
        #expect(try request("a=1", "b=2").cookie("b") == "2")
    }
}
