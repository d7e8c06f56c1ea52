import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StratusAPI
import StratusModel
import StratusStore

@Suite struct SignInTests {
    func page(_ f: APIFixture, _ path: String, form: [String: String]? = nil, origin: String? = nil) async throws -> (Int, String, URL?, [String: String]) {
        var req = URLRequest(url: URL(string: "\(f.app.url)auth/1/\(f.container.rawValue)/\(path)")!)
        if let form {
            req.httpMethod = "POST"
            req.httpBody = Data(form.map { "\($0.key)=\(APIFixture.encode($0.value))" }.joined(separator: "&").utf8)
            req.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        }
        if let origin { req.setValue(origin, forHTTPHeaderField: "Origin") }
        let (d, r) = try await f.session.data(for: req)
        let http = r as! HTTPURLResponse
        var h: [String: String] = [:]
        for (k, v) in http.allHeaderFields { h[String(describing: k).lowercased()] = String(describing: v) }
        return (http.statusCode, String(decoding: d, as: UTF8.self), http.url, h)
    }

    @Test func signUpAndSignInHandTheTokenToAnAllowedCallback() async throws {
        let f = try await APIFixture()
        let appOrigin = String(f.app.url.dropLast())
        _ = try f.app.store.createAPIToken(container: f.container, environment: .development, name: "web app", allowedOrigins: [appOrigin])
        let callback = APIFixture.encode(f.app.url + "-/health")

        let (status, html, _, headers) = try await page(f, "development/signin?callback=\(callback)")
        #expect(status == 200 && html.contains("<form") && html.contains("Continue as a test user"))
        #expect(headers["content-security-policy"]?.contains("script-src 'self'") == true && headers["x-frame-options"] == "DENY")
        #expect(!html.contains("<script>"))

        let signup = try await page(f, "development/signup?callback=\(callback)", form: ["email": "carol@example.com", "password": "a long password", "firstName": "Carol"])
        let landed = try #require(signup.2)
        let token = try #require(URLComponents(url: landed, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        let me = try await f.call("users/caller", user: token)
        #expect(me.status == 200 && me.json["nameComponents"]?["givenName"]?.string == "Carol")

        let signin = try await page(f, "development/signin?callback=\(callback)", form: ["email": "carol@example.com", "password": "a long password"])
        #expect(signin.2?.query?.contains("ckWebAuthToken=") == true)
        let wrong = try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "wrong"])
        #expect(wrong.0 == 401 && wrong.1.contains("do not match"))
    }

    @Test func tokensGoNowhereTheContainerDoesNotTrust() async throws {
        let f = try await APIFixture()
        _ = try f.app.store.createAPIToken(container: f.container, environment: .development, name: "web app", allowedOrigins: ["https://notes.example.com"])
        // Revoke the fixture's any-origin token so only the restricted one is live.
        for t in try f.app.store.apiTokens(container: f.container, environment: .development) where t.allowedOrigins.isEmpty {
            try f.app.store.revokeAPIToken(id: t.id, container: f.container)
        }
        let evil = APIFixture.encode("https://evil.example/steal")
        let r = try await page(f, "development/signin?callback=\(evil)&origin=\(APIFixture.encode("https://evil.example"))", form: ["testUser": "1"])
        #expect(r.0 == 200 && r.1.contains("keeps the session to itself"))
        #expect(!r.1.contains("data-ck-web-auth-token"))
        let trusted = try await page(f, "development/signin?origin=\(APIFixture.encode("https://notes.example.com"))", form: ["testUser": "1"])
        #expect(trusted.1.contains("data-origin=\"https://notes.example.com\"") && trusted.1.contains("data-ck-web-auth-token"))
        let crossSite = try await page(f, "development/signin", form: ["testUser": "1"], origin: "https://evil.example")
        #expect(crossSite.0 == 403)
    }

    @Test func testUsersOnlyInDevelopmentAndFailuresAreThrottled() async throws {
        let f = try await APIFixture()
        #expect(try await page(f, "production/signin", form: ["testUser": "1"]).0 == 403)
        for _ in 0..<SignInPages.maxFailures { _ = try await page(f, "development/signin", form: ["email": "mallory@example.com", "password": "guess"]) }
        let blocked = try await page(f, "development/signin", form: ["email": "mallory@example.com", "password": "guess"])
        #expect(blocked.0 == 429 && blocked.1.contains("Too many failed attempts"))
    }

    @Test func userTextIsEscaped() async throws {
        let f = try await APIFixture()
        let r = try await page(f, "development/signup", form: ["email": "<script>alert(1)</script>", "password": "a long password"])
        #expect(r.0 == 400 && r.1.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !r.1.contains("<script>alert"))
        #expect(try await page(f, "development/signin".replacingOccurrences(of: "development", with: "staging")).0 == 404)
    }
}
