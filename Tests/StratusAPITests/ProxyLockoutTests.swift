import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusServer
import StratusStore
import StratusTestSupport

/// Stratus behind a real nginx that forwards no client address (`proxy_pass` alone, nginx's default) or only
/// `X-Real-IP`, with `--public-url` and no `--trust-proxy`: loopback no longer counts as local (metrics refuse), and
/// an attacker's failed sign-ins, which all seem to come from the proxy's address, do not keep the real admin out:
/// their browser's device cookie lets them in at once.
@Suite struct ProxyLockoutTests {
    static let nginx = Prerequisites.executable("nginx", extra: ["/usr/sbin/nginx"])
    static let available = Prerequisites.available(nginx != nil && Prerequisites.executable("python3") != nil)

    /// nginx on `port` in front of `upstream`, plain HTTP, with the given `proxy_set_header` lines.
    final class Proxy: @unchecked Sendable {
        let process = ChildProcess()
        let directory: URL

        init(port: UInt16, upstream: UInt16, headers: String) throws {
            guard let nginx = ProxyLockoutTests.nginx else {
                throw Tools.ToolFailure(message: "nginx is not installed: apt-get install nginx-light")
            }
            directory = HTTPSProxyTests.nginxDirectory()
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.appendingPathComponent("tmp").path)
            let d = directory.path
            let conf = """
                worker_processes 1;
                error_log \(d)/error.log;
                pid \(d)/nginx.pid;
                events { worker_connections 64; }
                http {
                  access_log off;
                  client_body_temp_path \(d)/tmp/body; proxy_temp_path \(d)/tmp/proxy; fastcgi_temp_path \(d)/tmp/fastcgi;
                  uwsgi_temp_path \(d)/tmp/uwsgi; scgi_temp_path \(d)/tmp/scgi;
                  server {
                    listen 127.0.0.1:\(port);
                    location / {
                      proxy_pass http://127.0.0.1:\(upstream);
                      \(headers)
                    }
                  }
                }
                """
            let file = directory.appendingPathComponent("nginx.conf")
            try conf.write(to: file, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", d, "-c", file.path, "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            for _ in 0..<100 {
                if let c = try? RawClient(port: port, receiveTimeout: 5) {
                    c.send("GET /-/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    if c.readResponse()?.status == 200 { return }
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            throw StratusError(.internalError, "nginx did not start: \((try? String(contentsOfFile: "\(d)/error.log", encoding: .utf8)) ?? "")")
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func send(_ port: UInt16, _ raw: String) async throws -> RawClient.Response? {
        let c = try RawClient(port: port, receiveTimeout: 60)
        c.send(raw)
        return await c.response()
    }

    static func login(_ port: UInt16, email: String, password: String, cookie: String? = nil) async throws -> RawClient.Response? {
        let body = "email=\(APIFixture.encode(email))&password=\(APIFixture.encode(password))"
        return try await send(port, "POST /console/login HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nConnection: close\r\n"
                                     + (cookie.map { "Cookie: \($0)\r\n" } ?? "")
                                     + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    @Test(.enabled(if: available, "nginx is not installed: apt-get install nginx-light"),
          arguments: ["proxy_set_header Host $host:$server_port;", "proxy_set_header Host $host:$server_port; proxy_set_header X-Real-IP $remote_addr;"])
    func anAttackerBehindTheProxyDoesNotLockTheAdminOut(_ headers: String) async throws {
        let port = try FreePort.belowEphemeralRange()
        let f = try await APIFixture { c in
            c.http.publicURL = "http://127.0.0.1:\(port)"
            // A low ceiling, so that a few failures stand for the hundred of a real attack (each costs a password hash).
            c.signInThrottle = SignInThrottle.Policy(freeFailures: 2, addressCeiling: 5)
        }
        _ = try await offPool { try f.app.store.admins.createAdmin(email: "admin@example.com", password: "the admin's long password") }
        let proxy = try await offPool { try Proxy(port: port, upstream: f.app.port, headers: headers) }
        defer { proxy.stop() }

        // Through the proxy, this machine's loopback is not "local": metrics want their token.
        #expect(try await Self.send(port, "GET /-/metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?.status == 403)
        // The admin signs in once and their browser keeps a device cookie.
        let first = try #require(try await Self.login(port, email: "admin@example.com", password: "the admin's long password"))
        #expect(first.status == 303)
        let setCookies = (first.headers["set-cookie"] ?? "")
        let device = try #require(setCookies.components(separatedBy: CharacterSet(charactersIn: ",\n")).compactMap { part -> String? in
            guard let r = part.range(of: "stratus_device=") else { return nil }
            return "stratus_device=" + part[r.upperBound...].prefix { $0 != ";" }
        }.first, "\(setCookies)")
        // An attacker fails many times, all seeming to come from the proxy (the admin's address too).
        for i in 0..<8 {
            let r = try await Self.login(port, email: i % 2 == 0 ? "admin@example.com" : "guess\(i)@example.com", password: "wrong \(i)")
            #expect(r?.status == 401 || r?.status == 429)
        }
        // Without the device cookie, even the right password waits…
        #expect(try await Self.login(port, email: "admin@example.com", password: "the admin's long password")?.status == 429)
        // … with it, the admin is in at once.
        let back = try await Self.login(port, email: "admin@example.com", password: "the admin's long password", cookie: device)
        #expect(back?.status == 303 && back?.headers["location"] == "/console/", "\(back?.status ?? 0)")
    }

    /// Behind a trusted nginx that sets only X-Real-IP, a client that sends an X-Forwarded-For of its own (nginx
    /// passes it on) is still throttled by its real address: failed sign-ins under a new made-up address each time
    /// reach the address's ceiling.
    @Test(.enabled(if: available, "nginx is not installed: apt-get install nginx-light"))
    func aSpoofedForwardedForDoesNotBuyFreshAttempts() async throws {
        let port = try FreePort.belowEphemeralRange()
        let f = try await APIFixture { c in
            c.http.trustedProxies = [CIDR("127.0.0.1")!]
            c.http.proxyAddressHeader = .xRealIP
            c.signInThrottle = SignInThrottle.Policy(freeFailures: 100, addressCeiling: 5)
        }
        let proxy = try await offPool { try Proxy(port: port, upstream: f.app.port, headers: "proxy_set_header Host $host:$server_port; proxy_set_header X-Real-IP $remote_addr;") }
        defer { proxy.stop() }
        var statuses: [Int] = []
        for i in 0..<9 {
            let body = "email=\(APIFixture.encode("guess\(i)@example.com"))&password=wrong"
            let r = try await Self.send(port, "POST /console/login HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: http://127.0.0.1:\(port)\r\nConnection: close\r\n"
                                        + "X-Forwarded-For: 198.51.100.\(i + 1)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            statuses.append(r?.status ?? 0)
        }
        #expect(statuses.last == 429, "the address's failures added up whatever X-Forwarded-For said: \(statuses)")
    }
}
