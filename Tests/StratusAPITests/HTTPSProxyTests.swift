import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore
import StratusTestSupport

/// Stratus behind a real nginx terminating TLS (self-signed certificate), started by the test: every URL the
/// server hands out is the public https one, the Python CloudKit client works through it, an asset goes up and
/// comes back, and the console works in headless Chromium with no mixed content and a Secure session cookie.
@Suite struct HTTPSProxyTests {
    static let nginx = Prerequisites.executable("nginx", extra: ["/usr/sbin/nginx"])
    static let tools = nginx != nil && Prerequisites.executable("openssl") != nil && Prerequisites.executable("curl") != nil
    static let available = Prerequisites.available(tools && Prerequisites.pythonModules(["requests", "cryptography"]))
    static let driver = ProcessInfo.processInfo.environment["CHROMEDRIVER"] ?? "/usr/bin/chromedriver"

    /// nginx with TLS on `port`, forwarding to `upstream` with X-Forwarded-For and X-Forwarded-Proto.
    final class TLSProxy: @unchecked Sendable {
        let process = ChildProcess()
        let cert: URL
        let directory: URL

        init(port: UInt16, upstream: UInt16, directory: URL) throws {
            // Required (STRATUS_REQUIRE_ALL) and missing: a failure of this test, not a trap that ends the whole run.
            guard let nginx = HTTPSProxyTests.nginx else {
                throw Tools.ToolFailure(message: "nginx is not installed: apt-get install nginx-light")
            }
            self.directory = directory
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: directory.appendingPathComponent("tmp").path)
            let (cert, key) = try Tools.selfSignedCertificate(in: directory)
            self.cert = cert
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
                  client_max_body_size 60m;
                  server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(cert.path);
                    ssl_certificate_key \(key.path);
                    location / {
                      proxy_pass http://127.0.0.1:\(upstream);
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_set_header Host $host:$server_port;
                      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
                      proxy_set_header X-Forwarded-Proto $scheme;
                    }
                  }
                }
                """
            let confFile = directory.appendingPathComponent("nginx.conf")
            try conf.write(to: confFile, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-p", d, "-c", confFile.path, "-g", "daemon off;"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Up when it answers.
            for _ in 0..<100 {
                if (try? HTTPSProxyTests.curl("https://localhost:\(port)/-/health", cert: cert))?.status == 200 { return }
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

    static func run(_ tool: String, _ args: [String], env: [String: String] = [:], stdin: Data? = nil) throws -> (status: Int32, output: String) {
        try Tools.run(tool, args, env: env, stdin: stdin)
    }

    /// One request through curl, checking the certificate against ours: status and body.
    static func curl(_ url: String, cert: URL, method: String = "GET", body: Data? = nil) throws -> (status: Int, body: String) {
        var args = ["-sS", "--cacert", cert.path, "-X", method, "-o", "-", "-w", "\n%{http_code}", url]
        if body != nil { args += ["-H", "Content-Type: text/plain", "--data-binary", "@-"] }
        let r = try run("curl", args, stdin: body)
        let status = Int(r.output.split(separator: "\n").last ?? "") ?? 0
        return (status, String(r.output.dropLast(String(status).count + 1)))
    }

    /// nginx's own directory, outside the server's data directory (which is the server's alone: 0700, so nginx's
    /// workers could not write their temporary files there).
    static func nginxDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("stratus-nginx-\(UUID().uuidString)")
    }

    @Test(.enabled(if: available, "nginx, openssl, curl or python3's requests and cryptography are not installed: apt-get install nginx-light openssl curl"))
    func everythingWorksThroughATLSProxy() async throws {
        let port = try FreePort.belowEphemeralRange()
        let publicURL = "https://localhost:\(port)"
        let f = try await APIFixture { c in
            c.http.publicURL = publicURL
            c.http.trustedProxies = [CIDR("127.0.0.1")!]
        }
        let proxy = try await offPool { try TLSProxy(port: port, upstream: f.app.port, directory: HTTPSProxyTests.nginxDirectory()) }
        defer { proxy.stop() }
        let api = "\(publicURL)/database/1/\(f.container.rawValue)/development"
        let cert = proxy.cert, devToken = f.devToken
        @Sendable func curl(_ url: String, method: String = "GET", body: Data? = nil) async throws -> (status: Int, body: String) {
            try await offPool { try Self.curl(url, cert: cert, method: method, body: body) }
        }
        func call(_ path: String, _ body: String? = nil, user: String? = nil) async throws -> JSON {
            var url = "\(api)/\(path)?ckAPIToken=\(devToken)"
            if let user { url += "&ckWebAuthToken=\(APIFixture.encode(user))" }
            let r = try await curl(url, method: body == nil ? "GET" : "POST", body: body.map { Data($0.utf8) })
            return (try? JSON.parse(Data(r.body.utf8))) ?? .null
        }

        // Every absolute URL the server builds is the public https one.
        let anonymous = try await call("private/zones/list")
        #expect(anonymous["redirectURL"]?.string?.hasPrefix("\(publicURL)/auth/1/") == true, "\(anonymous)")
        let tokens = try await curl("\(publicURL)/device/1/\(f.container.rawValue)/development/tokens/create?ckAPIToken=\(f.devToken)&ckWebAuthToken=\(APIFixture.encode(f.aliceToken))",
                                    method: "POST", body: Data(#"{"apnsEnvironment":"DEVELOPMENT"}"#.utf8))
        #expect(tokens.body.contains(#""webcourierURL":"\#(publicURL)/-/webcourier/"#), "\(tokens.body)")
        let upload = try await call("private/assets/upload", #"{"tokens":[{"recordType":"Photo","fieldName":"image"}]}"#, user: f.aliceToken)
        let uploadURL = try #require(upload["tokens"]?.array?.first?["url"]?.string)
        #expect(uploadURL.hasPrefix("\(publicURL)/-/assets/upload/"))

        // An asset goes up and comes back through TLS.
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sent = try await curl(uploadURL, method: "POST", body: bytes)
        let single = try #require(try JSON.parse(Data(sent.body.utf8))["singleFile"])
        let value = #"{"fileChecksum":"\#(single["fileChecksum"]!.string!)","size":\#(bytes.count),"receipt":"\#(single["receipt"]!.string!)"}"#
        let saved = try await call("private/records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p","recordType":"Photo","fields":{"image":{"value":\#(value)}}}}]}"#,
                             user: f.aliceToken)
        let download = try #require(saved["records"]?.array?.first?["fields"]?["image"]?["value"]?["downloadURL"]?.string, "\(saved)")
        #expect(download.hasPrefix("\(publicURL)/-/assets/"))
        let fetched = try await offPool { () -> Data in
            let file = f.data.appendingPathComponent("downloaded")
            _ = try Self.run("curl", ["-sS", "--cacert", proxy.cert.path, "-o", file.path, download])
            return try Data(contentsOf: file)
        }
        #expect(fetched == bytes)

        // The independent Python client, through https.
        let key = P256.Signing.PrivateKey()
        let registered = try f.app.store.credentials.addServerKey(container: f.container, environment: .development, publicKeyPEM: key.publicKey.pemRepresentation)
        let keyFile = f.data.appendingPathComponent("eckey.pem")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        let e2e = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("e2e")
        let python = try await offPool {
            try Self.run("python3", [e2e.appendingPathComponent("cloudkit_s2s_client.py").path], env: [
                "STRATUS_URL": publicURL + "/", "STRATUS_CONTAINER": f.container.rawValue, "STRATUS_KEY_ID": registered.keyID,
                "STRATUS_KEY_FILE": keyFile.path, "REQUESTS_CA_BUNDLE": proxy.cert.path,
            ])
        }
        #expect(python.status == 0 && python.output.contains("passed, 0 failed"), "\(python.output)")

        // The console in a real browser, through https.
        guard Prerequisites.available(FileManager.default.isExecutableFile(atPath: Self.driver)) else { return }
        let env = try f.app.store.environment(f.container, .development)
        _ = try env.records.modify([RecordOperation(.create, StoredRecord(recordName: "note", recordType: "Note", fields: ["title": .string("Before")]))],
                           in: .publicDatabase, actor: .system)
        let setup = try #require(f.app.console.setupPath)
        let root = e2e.deletingLastPathComponent().deletingLastPathComponent()
        let browser = try await offPool {
            try Self.run("python3", [e2e.appendingPathComponent("https_flows.py").path], env: [
                "STRATUS_URL": publicURL, "STRATUS_SETUP": setup, "CHROMEDRIVER": Self.driver, "CHROME_ARGS": "--ignore-certificate-errors",
                "STRATUS_RECORD_PATH": "/console/\(f.container.rawValue)/development/public/records/_defaultZone/note",
                "STRATUS_SCREENSHOTS": root.appendingPathComponent("test-artifacts/screenshots").path,
            ])
        }
        #expect(browser.status == 0 && browser.output.contains("https flows: passed"), "\(browser.output)")
        #expect(try env.records.lookup(["note"], in: .publicDatabase)[0].get().fields["title"] == .string("Edited through TLS"))
    }

    @Test func forwardedHeadersCountOnlyFromTrustedProxies() throws {
        var trusted = try HTTPRequest(method: .get, target: "/", headers: HTTPHeaders([("Host", "internal:8080"), ("X-Forwarded-For", "203.0.113.9, 10.0.0.2"),
                                                                                       ("X-Forwarded-Proto", "https")]), remoteAddress: "10.0.0.2:5000")
        trusted.resolveClient(publicURL: nil, trustedProxies: [CIDR("10.0.0.0/8")!])
        #expect(trusted.clientAddress == "203.0.113.9" && trusted.scheme == "https" && trusted.baseURL == "https://internal:8080")
        var spoofed = try HTTPRequest(method: .get, target: "/", headers: HTTPHeaders([("Host", "x"), ("X-Forwarded-For", "1.2.3.4"), ("X-Forwarded-Proto", "https")]),
                                      remoteAddress: "198.51.100.7:5000")
        spoofed.resolveClient(publicURL: "https://ck.example.com", trustedProxies: [CIDR("10.0.0.0/8")!])
        #expect(spoofed.clientAddress == "198.51.100.7" && spoofed.baseURL == "https://ck.example.com")
        #expect(CIDR("::1")!.contains("::1") && CIDR("127.0.0.0/8")!.contains("127.0.0.1") && !CIDR("127.0.0.0/8")!.contains("128.0.0.1"))
        #expect(CIDR("not an address") == nil && CIDR("10.0.0.0/33") == nil)
    }
}
