import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore
import StratusTestSupport

/// A real nginx on this machine in front of a server that was not told to trust it (no `--trust-proxy`): what it
/// forwards is never loopback's own (so `/-/metrics` stays closed to the world), and one client's failed sign-ins
/// do not lock everyone else out, because each request counts as the address nginx forwarded. The server says
/// so in its log, once.
@Suite struct UntrustedProxyTests {
    /// One request through the proxy from a loopback address of the test's choosing (curl `--interface`), the way
    /// two machines on the internet would reach it: status and body.
    static func curl(_ url: String, cert: URL, from: String, form: String? = nil) throws -> (status: Int, body: String) {
        var args = ["-sS", "--interface", from, "--cacert", cert.path, "-o", "-", "-w", "\n%{http_code}", url]
        if let form { args += ["-X", "POST", "-H", "Content-Type: application/x-www-form-urlencoded", "--data-binary", form] }
        let r = try HTTPSProxyTests.run("curl", args)
        let status = Int(r.output.split(separator: "\n").last ?? "") ?? 0
        return (status, String(r.output.dropLast(String(status).count + 1)))
    }

    @Test(.enabled(if: HTTPSProxyTests.available, "nginx, openssl and curl are not installed: apt-get install nginx-light openssl curl"))
    func aProxyThatIsNotTrustedOpensNothingAndLocksNoOneOut() async throws {
        let port = try FreePort.belowEphemeralRange()
        // The sign-in ceiling per address is lowered so that the test's spray reaches it quickly.
        let f = try await APIFixture { $0.signInThrottle.addressCeiling = 10 }
        _ = try await offPool { try f.app.store.admins.createAdmin(email: "admin@example.com", password: "a long admin password") }
        let proxy = try await offPool { try HTTPSProxyTests.TLSProxy(port: port, upstream: f.app.port, directory: HTTPSProxyTests.nginxDirectory()) }
        defer { proxy.stop() }
        let base = "https://localhost:\(port)", cert = proxy.cert

        // Metrics: the loopback interface itself may read them; the same machine through the proxy may not.
        let direct = try await f.session.data(from: URL(string: "\(f.app.url)-/metrics")!)
        #expect((direct.1 as? HTTPURLResponse)?.statusCode == 200)
        let proxied = try await offPool { try Self.curl("\(base)/-/metrics", cert: cert, from: "127.0.0.1") }
        #expect(proxied.status == 403 && !proxied.body.contains("stratus_records"), "\(proxied.body.prefix(200))")

        // An attacker at 127.0.0.5 sprays wrong passwords until its own address is held back …
        var last = 0
        for i in 0..<12 {
            last = try await offPool { try Self.curl("\(base)/console/login", cert: cert, from: "127.0.0.5", form: "email=x\(i)%40example.com&password=guess") }.status
        }
        #expect(last == 429)
        // … and the administrator at 127.0.0.9 signs in all the same.
        let admin = try await offPool { try Self.curl("\(base)/console/login", cert: cert, from: "127.0.0.9", form: "email=admin%40example.com&password=a+long+admin+password") }
        #expect(admin.status == 303, "\(admin.status) \(admin.body.prefix(300))")
    }

    @Test func forwardedHeadersFromLoopbackAreReadButNotTrusted() throws {
        var headers = HTTPHeaders()
        headers["forwarded"] = #"for=192.0.2.60;proto=http, for="[2001:db8::17]:4711""#
        var r = try HTTPRequest(method: .get, target: "/-/metrics", headers: headers, remoteAddress: "127.0.0.1:5555")
        r.resolveClient(publicURL: nil, trustedProxies: [])
        #expect(r.viaUntrustedProxy && !r.isLoopback && r.clientAddress == "2001:db8::17")
        // A claimed loopback address does not make it loopback.
        var spoof = HTTPHeaders()
        spoof["x-forwarded-for"] = "127.0.0.1"
        var s = try HTTPRequest(method: .get, target: "/-/metrics", headers: spoof, remoteAddress: "127.0.0.1:5555")
        s.resolveClient(publicURL: nil, trustedProxies: [])
        #expect(s.viaUntrustedProxy && !s.isLoopback)
        // From elsewhere the headers are ignored entirely, and a direct local request is loopback.
        var remote = try HTTPRequest(method: .get, target: "/", headers: spoof, remoteAddress: "203.0.113.9:1234")
        remote.resolveClient(publicURL: nil, trustedProxies: [])
        #expect(!remote.viaUntrustedProxy && remote.clientAddress == "203.0.113.9")
        var local = try HTTPRequest(method: .get, target: "/", remoteAddress: "127.0.0.1:1")
        local.resolveClient(publicURL: nil, trustedProxies: [])
        #expect(local.isLoopback)
    }
}
