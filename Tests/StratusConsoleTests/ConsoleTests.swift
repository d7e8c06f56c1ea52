import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import StratusConsole
import StratusHTTP
import StratusModel
import StratusServer
import StratusStore

/// The console over real HTTP, with a cookie-less client that carries the session cookie by hand.
final class ConsoleFixture: @unchecked Sendable {
    let app: StratusApplication
    let data: URL
    let session: URLSession

    init(allowProductionUserData: Bool = false, signInThrottle: SignInThrottle.Policy = SignInThrottle.Policy(),
         configure: (inout ServerConfig) -> Void = { _ in }) async throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-console-\(UUID().uuidString)")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var config = ServerConfig(port: 0, dataDirectory: data, templatesDirectory: root.appendingPathComponent("Templates"),
                                  publicDirectory: root.appendingPathComponent("Public"), allowProductionUserData: allowProductionUserData)
        config.signInThrottle = signInThrottle
        config.durability = .relaxed  // as in APIFixture: no fsync per commit on the cooperative threads
        configure(&config)
        let configured = config
        app = try await StratusApplication.open(config: configured)
        let c = URLSessionConfiguration.ephemeral
        c.httpShouldSetCookies = false
        session = URLSession(configuration: c, delegate: NoRedirects(), delegateQueue: nil)
        try await app.start()
    }

    deinit {
        let app = self.app, data = self.data
        // Its kept-alive connections close now; the server's files close when it stops.
        session.invalidateAndCancel()
        Task { await app.stop(); try? FileManager.default.removeItem(at: data) }
    }

    struct Page { var status: Int; var html: String; var headers: [String: String] }

    func request(_ path: String, form: [String: String]? = nil, cookie: String? = nil, origin: String? = nil) async throws -> Page {
        var req = URLRequest(url: URL(string: app.url + path.dropFirst())!)
        if let form {
            req.httpMethod = "POST"
            req.httpBody = Data(form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&").utf8)
            req.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        if let cookie { req.setValue(cookie, forHTTPHeaderField: "Cookie") }
        if let origin { req.setValue(origin, forHTTPHeaderField: "Origin") }
        let (d, r) = try await session.data(for: req)
        let http = r as! HTTPURLResponse
        var h: [String: String] = [:]
        for (k, v) in http.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
        return Page(status: http.statusCode, html: String(decoding: d, as: UTF8.self), headers: h)
    }

    static func sessionCookie(_ p: Page) -> String? {
        p.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
    }

    static func csrf(_ html: String) -> String? {
        guard let r = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[r.upperBound...].prefix { $0 != "\"" })
    }
}

final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) { completionHandler(nil) }
}

@Suite struct ConsoleTests {
    @Test func firstAdminSetupLoginContainersAndLogout() async throws {
        let f = try await ConsoleFixture()
        // Without an admin, the console points at setup; the setup link needs its secret.
        #expect(try await f.request("/console/").status == 403)
        let setupPath = try #require(f.app.console.setupPath)
        #expect(try await f.request("/console/setup?token=wrong").status == 404)
        let setupPage = try await f.request(setupPath)
        #expect(setupPage.status == 200 && setupPage.html.contains("Create the first administrator"))
        #expect(setupPage.headers["content-security-policy"] != nil && setupPage.headers["x-frame-options"] == "DENY")
        let created = try await f.request("/console/setup", form: ["token": f.app.console.setupToken, "email": "admin@example.com", "password": "a long admin password"])
        #expect(created.status == 303)
        let setCookie = try #require(created.headers["set-cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        let cookie = try #require(ConsoleFixture.sessionCookie(created))
        #expect(f.app.console.setupPath == nil)
        #expect(try await f.request("/console/setup", form: ["token": f.app.console.setupToken, "email": "x@example.com", "password": "another long password"]).status == 409)

        // Signed in: the containers page, and creating one with the form's CSRF token.
        let home = try await f.request("/console/", cookie: cookie)
        #expect(home.status == 200 && home.html.contains("No containers yet"))
        let csrf = try #require(ConsoleFixture.csrf(home.html))
        let missingToken = try await f.request("/console/containers", form: ["id": "iCloud.com.example.Forged"], cookie: cookie)
        #expect(missingToken.status == 403)
        let crossSite = try await f.request("/console/containers", form: ["id": "iCloud.com.example.Forged", "csrf": csrf], cookie: cookie, origin: "https://evil.example")
        #expect(crossSite.status == 403)
        let made = try await f.request("/console/containers", form: ["id": "iCloud.com.example.Notes", "csrf": csrf], cookie: cookie)
        #expect(made.status == 303)
        let listed = try await f.request("/console/?created=iCloud.com.example.Notes", cookie: cookie)
        #expect(listed.html.contains("iCloud.com.example.Notes") && !listed.html.contains("Forged"))
        let bad = try await f.request("/console/containers", form: ["id": "<script>alert(1)</script>", "csrf": csrf], cookie: cookie)
        #expect(bad.status == 400 && bad.html.contains("&lt;script&gt;") && !bad.html.contains("<script>alert"))
        let audit = try await f.request("/console/audit", cookie: cookie)
        #expect(audit.html.contains("create container") && audit.html.contains("admin@example.com"))

        // Sign out revokes the session.
        #expect(try await f.request("/console/logout", form: ["csrf": csrf], cookie: cookie).status == 303)
        let after = try await f.request("/console/", cookie: cookie)
        #expect(after.status == 303 && after.headers["location"] == "/console/login")
    }

    @Test func onlyLoginAndStaticFilesWithoutASession() async throws {
        let f = try await ConsoleFixture(signInThrottle: SignInThrottle.Policy(baseDelay: .seconds(3)))
        try await BlockingWork.shared.run { _ = try f.app.store.admins.createAdmin(email: "admin@example.com", password: "a long admin password") }
        for path in ["/console/", "/console/audit", "/console/iCloud.com.example.X/development/", "/console/anything/else"] {
            let p = try await f.request(path, cookie: "stratus_session=" + String(repeating: "0", count: 64))
            #expect(p.status == 303 && p.headers["location"] == "/console/login", "\(path) → \(p.status)")
        }
        #expect(try await f.request("/console/login").status == 200)
        #expect(try await f.request("/-/static/console.css").status == 200)
        let wrong = try await f.request("/console/login", form: ["email": "admin@example.com", "password": "wrong password"])
        #expect(wrong.status == 401 && wrong.html.contains("do not match"))
        let ok = try await f.request("/console/login", form: ["email": "admin@example.com", "password": "a long admin password"])
        #expect(ok.status == 303 && ConsoleFixture.sessionCookie(ok) != nil)
        // Guessing earns the account a short delay, not a lock-out: its owner gets in once the delay is over.
        for _ in 0..<3 { #expect(try await f.request("/console/login", form: ["email": "admin@example.com", "password": "guess"]).status == 401) }
        let held = try await f.request("/console/login", form: ["email": "admin@example.com", "password": "a long admin password"])
        // "Wait N seconds": at most the 3 s delay, fewer when the machine was slow between the guess and this try.
        #expect(held.status == 429 && ["Wait 3 seconds", "Wait 2 seconds", "Wait 1 second"].contains { held.html.contains($0) }, "\(held.html.prefix(2000))")
        let wait = try #require(held.headers["retry-after"].flatMap(Int.init))
        try await Task.sleep(for: .milliseconds(wait * 1000 + 100))
        #expect(try await f.request("/console/login", form: ["email": "admin@example.com", "password": "a long admin password"]).status == 303)
    }
}
