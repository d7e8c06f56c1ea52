import Testing
@testable import StratusHTTP

/// The client's host without its port, and the `Host` header a URL base may be built from.
@Suite struct RequestAddressTests {
    @Test func hostOfAnAddressDropsThePort() {
        #expect(HTTPRequest.host(ofAddress: "127.0.0.1:5000") == "127.0.0.1")
        #expect(HTTPRequest.host(ofAddress: "[::1]:5000") == "::1")
        #expect(HTTPRequest.host(ofAddress: "[fe80::1%eth0]:80") == "fe80::1%eth0")
        #expect(HTTPRequest.host(ofAddress: "::1") == "::1")
        #expect(HTTPRequest.host(ofAddress: "10.0.0.7") == "10.0.0.7")
        #expect(HTTPRequest.host(ofAddress: "") == "")
    }

    @Test func baseURLTakesOnlyAPlainHostHeader() throws {
        func base(_ host: String) throws -> String {
            var r = try RequestHeadParser.parse(Array("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n".utf8)[...], remoteAddress: "127.0.0.1:1")
            r.resolveClient(publicURL: nil, trustedProxies: [])
            return r.baseURL
        }
        #expect(try base("example.com:8080") == "http://example.com:8080")
        #expect(try base("[::1]:80") == "http://[::1]:80")
        #expect(try base("évil.com") == "http://127.0.0.1")
        #expect(try base("a.com/x") == "http://127.0.0.1")
        #expect(try base("a.com\"><script>") == "http://127.0.0.1")
    }
}
