import Testing
@testable import StratusHTTP

/// Whether a connection stays open after its answer: HTTP/1.1 unless `Connection` lists `close`, HTTP/1.0 only when it
/// lists `keep-alive`; the header's tokens compare without regard to case and surrounding spaces.
@Suite struct KeepAliveTests {
    static func request(_ version: String, connection: String?) throws -> HTTPRequest {
        let header = connection.map { "Connection: \($0)\r\n" } ?? ""
        return try RequestHeadParser.parse(Array("GET / \(version)\r\nHost: x\r\n\(header)\r\n".utf8)[...], remoteAddress: "127.0.0.1")
    }

    @Test func http11StaysOpenUnlessCloseIsListed() throws {
        #expect(try Self.request("HTTP/1.1", connection: nil).keepAlive)
        #expect(try Self.request("HTTP/1.1", connection: "keep-alive").keepAlive)
        #expect(try !Self.request("HTTP/1.1", connection: "close").keepAlive)
        #expect(try !Self.request("HTTP/1.1", connection: "Close").keepAlive)
        #expect(try !Self.request("HTTP/1.1", connection: "Upgrade,  CLOSE ").keepAlive)
        #expect(try Self.request("HTTP/1.1", connection: "closed").keepAlive)
        #expect(try Self.request("HTTP/1.1", connection: "").keepAlive)
    }

    @Test func http10ClosesUnlessKeepAliveIsListed() throws {
        #expect(try !Self.request("HTTP/1.0", connection: nil).keepAlive)
        #expect(try Self.request("HTTP/1.0", connection: "Keep-Alive").keepAlive)
        #expect(try Self.request("HTTP/1.0", connection: "foo, keep-alive").keepAlive)
        #expect(try !Self.request("HTTP/1.0", connection: "keep-alive-ish").keepAlive)
        #expect(try !Self.request("HTTP/1.0", connection: "keep_alive").keepAlive)
    }

    @Test func listsComparesWholeTokens() {
        #expect(HTTPRequest.lists("a, b ,\tc", "b"))
        #expect(HTTPRequest.lists("A,B", "b"))
        #expect(!HTTPRequest.lists("ab", "b"))
        #expect(!HTTPRequest.lists(nil, "b"))
        #expect(!HTTPRequest.lists(",,", "b"))
    }
}
