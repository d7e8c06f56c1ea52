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

    /// Loopback is this machine's own user only on a plain local server: not through a proxy that says so in any
    /// header (X-Real-IP included) and not when a public URL is set with no trusted proxy (a proxy that forwards no
    /// header at all sits in front of it).
    @Test func loopbackIsLocalOnlyOnAPlainLocalServer() throws {
        func request(_ headers: String, publicURL: String? = nil, trusted: [CIDR] = [], header: ForwardedHeader = .xForwardedFor) throws -> HTTPRequest {
            var r = try RequestHeadParser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n\(headers)\r\n".utf8)[...], remoteAddress: "127.0.0.1:1")
            r.resolveClient(publicURL: publicURL, trustedProxies: trusted, addressHeader: header)
            return r
        }
        #expect(try request("").isLoopback)
        #expect(try !request("", publicURL: "https://ck.example.com").isLoopback)
        let real = try request("X-Real-IP: 203.0.113.9\r\n")
        #expect(!real.isLoopback && real.viaUntrustedProxy && real.clientAddress == "203.0.113.9")
        #expect(try !request("X-Forwarded-For: 203.0.113.9\r\n").isLoopback)
        // A trusted proxy's X-Real-IP names the client when the server is told that is the header it sets.
        let trusted = try request("X-Real-IP: 203.0.113.9\r\n", trusted: [CIDR("127.0.0.1")!], header: .xRealIP)
        #expect(trusted.clientAddress == "203.0.113.9" && !trusted.isLoopback)
        // A trusted proxy is told to name the client (X-Forwarded-For); what it forwards without one is the proxy's own.
        #expect(try request("", publicURL: "https://ck.example.com", trusted: [CIDR("127.0.0.1")!]).isLoopback)
    }

    /// Behind a trusted proxy that sets only X-Real-IP, the client's own X-Forwarded-For, which such a proxy passes
    /// on unchanged, names nobody: a client cannot pick the address its throttles and log lines are kept under.
    @Test func onlyTheHeaderTheTrustedProxySetsIsBelieved() throws {
        func client(_ headers: String, _ header: ForwardedHeader) throws -> String {
            var r = try RequestHeadParser.parse(Array("GET / HTTP/1.1\r\nHost: x\r\n\(headers)\r\n".utf8)[...], remoteAddress: "10.0.0.2:1")
            r.resolveClient(publicURL: nil, trustedProxies: [CIDR("10.0.0.0/8")!], addressHeader: header)
            return r.clientAddress
        }
        let spoofed = "X-Forwarded-For: 198.51.100.77\r\nX-Real-IP: 203.0.113.9\r\nForwarded: for=192.0.2.1\r\n"
        #expect(try client(spoofed, .xRealIP) == "203.0.113.9")
        #expect(try client(spoofed, .forwarded) == "192.0.2.1")
        #expect(try client(spoofed, .xForwardedFor) == "198.51.100.77")
        // The proxy's own header missing: the request is the proxy's, whatever else it carries.
        #expect(try client("X-Forwarded-For: 198.51.100.77\r\n", .xRealIP) == "10.0.0.2")
        #expect(try client("X-Real-IP: 203.0.113.9\r\n", .xForwardedFor) == "10.0.0.2")
    }
}
