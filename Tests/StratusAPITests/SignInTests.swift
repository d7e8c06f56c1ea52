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
        _ = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web app", allowedOrigins: [appOrigin])
        let callback = APIFixture.encode(f.app.url + "-/health")

        let (status, html, _, headers) = try await page(f, "development/signin?callback=\(callback)")
        #expect(status == 200 && html.contains("<form") && html.contains("Continue as a test user"))
        #expect(headers["content-security-policy"]?.contains("script-src 'self'") == true && headers["x-frame-options"] == "DENY")
        #expect(!html.contains("<script>"))

        // Sign-up ends on the sign-in form (the same page whether or not the address had an account), which keeps the callback.
        let signup = try await page(f, "development/signup?callback=\(callback)", form: ["email": "carol@example.com", "password": "a long password", "firstName": "Carol"])
        #expect(signup.0 == 200 && signup.1.contains("id=\"signed-up\"") && signup.1.contains("value=\"carol@example.com\"") && signup.1.contains("signin?callback="))
        let signin = try await page(f, "development/signin?callback=\(callback)", form: ["email": "carol@example.com", "password": "a long password"])
        let landed = try #require(signin.2)
        let token = try #require(URLComponents(url: landed, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        let me = try await f.call("users/caller", user: token)
        #expect(me.status == 200 && me.json["nameComponents"]?["givenName"]?.string == "Carol")
        let wrong = try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "wrong"])
        #expect(wrong.0 == 401 && wrong.1.contains("do not match"))
    }

    @Test func tokensGoNowhereTheContainerDoesNotTrust() async throws {
        let f = try await APIFixture()
        let evil = APIFixture.encode("https://evil.example/steal")
        let evilOrigin = APIFixture.encode("https://evil.example")
        // Given only the fixture's token, made as `stratus token create` makes it (no allowed origins):
        // neither a callback nor an opener origin is trusted, and the page refuses before asking anything.
        for query in ["callback=\(evil)", "origin=\(evilOrigin)", "callback=\(APIFixture.encode(f.app.url + "-/health"))"] {
            let shown = try await page(f, "development/signin?\(query)")
            #expect(shown.0 == 403 && shown.1.contains("not trusted") && !shown.1.contains("<form"))
            let posted = try await page(f, "development/signin?\(query)", form: ["testUser": "1"])
            #expect(posted.0 == 403 && !posted.1.contains("data-ck-web-auth-token"))
            #expect(posted.3["location"] == nil && posted.2?.query?.contains("ckWebAuthToken") != true)
        }

        _ = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web app", allowedOrigins: ["https://notes.example.com"])
        let r = try await page(f, "development/signin?callback=\(evil)&origin=\(evilOrigin)", form: ["testUser": "1"])
        #expect(r.0 == 403 && !r.1.contains("data-ck-web-auth-token"))
        // Look-alikes of the trusted origin are other origins.
        for lookalike in ["https://notes.example.com.evil.example/", "https://notes.example.com@evil.example/", "http://notes.example.com/",
                          "https://notes.example.com:444/", "https://notes.example.com\\@evil.example/", "javascript:alert(1)//https://notes.example.com"] {
            let l = try await page(f, "development/signin?callback=\(APIFixture.encode(lookalike))", form: ["testUser": "1"])
            #expect(l.0 == 403 && l.3["location"] == nil, "\(lookalike)")
        }
        let trusted = try await page(f, "development/signin?origin=\(APIFixture.encode("https://notes.example.com"))", form: ["testUser": "1"])
        #expect(trusted.1.contains("data-origin=\"https://notes.example.com\"") && trusted.1.contains("data-ck-web-auth-token"))
        // A revoked token trusts nothing any more.
        for t in try f.app.store.credentials.apiTokens(container: f.container, environment: .development) { try f.app.store.credentials.revokeAPIToken(id: t.id, container: f.container) }
        #expect(try await page(f, "development/signin?origin=\(APIFixture.encode("https://notes.example.com"))", form: ["testUser": "1"]).0 == 403)
        let crossSite = try await page(f, "development/signin", form: ["testUser": "1"], origin: "https://evil.example")
        #expect(crossSite.0 == 403)
    }

    @Test func testUsersOnlyInDevelopmentAndFailuresAreThrottled() async throws {
        // A first delay of 5 s, so a slow machine still asks again within it.
        let f = try await APIFixture { $0.signInThrottle.addressCeiling = 6; $0.signInThrottle.baseDelay = .seconds(5) }
        #expect(try await page(f, "production/signin", form: ["testUser": "1"]).0 == 403)
        _ = try await page(f, "development/signup", form: ["email": "carol@example.com", "password": "a long password"])
        // An attacker guessing Carol's password earns her account a growing delay …
        for _ in 0..<3 { #expect(try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "guess"]).0 == 401) }
        let held = try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "a long password"])
        // The wait counts down from 5 s: a loaded machine may ask a second or two into it.
        let wait = held.1.firstMatch(of: /Wait (\d) seconds?/).flatMap { Int($0.1) }
        #expect(held.0 == 429 && (1...5).contains(wait ?? 0) && held.3["retry-after"] == wait.map(String.init), "\(held.0) \(held.3)")
        // … that other accounts do not share,
        #expect(try await page(f, "development/signin", form: ["email": "dave@example.com", "password": "guess"]).0 == 401)
        // and after which Carol's own password works.
        try await Task.sleep(for: .milliseconds(5_100))
        let carol = try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "a long password"])
        #expect(carol.0 == 200 && carol.1.contains("keeps the session to itself"))
        // One address spraying many accounts meets its ceiling (6 failures here), whatever account it tries next.
        for i in 0..<2 { _ = try await page(f, "development/signin", form: ["email": "x\(i)@example.com", "password": "guess"]) }
        let sprayed = try await page(f, "development/signin", form: ["email": "y@example.com", "password": "guess"])
        #expect(sprayed.0 == 429)
    }

    @Test func signUpTellsNoOneWhoHasAnAccountAndIsThrottled() async throws {
        let f = try await APIFixture { $0.signInThrottle.signUpsPerAddressPerHour = 4 }
        let first = try await page(f, "development/signup", form: ["email": "carol@example.com", "password": "a long password"])
        // The same address again, with another password: the same page, and Carol's account is as it was.
        let again = try await page(f, "development/signup", form: ["email": "Carol@Example.com", "password": "another password"])
        let unknown = try await page(f, "development/signup", form: ["email": "nobody-yet@example.com", "password": "another password"])
        #expect(first.0 == 200 && again.0 == 200 && unknown.0 == 200)
        #expect(again.1.replacingOccurrences(of: "Carol@Example.com", with: "X") == unknown.1.replacingOccurrences(of: "nobody-yet@example.com", with: "X"),
                "an existing address and a new one get the same page")
        #expect(!again.1.lowercased().contains("already exists"))
        #expect(try await page(f, "development/signin", form: ["email": "carol@example.com", "password": "another password"]).0 == 401)
        #expect(try f.app.store.accounts.authenticateUser(container: f.container, email: "carol@example.com", password: "a long password") != nil)
        // Past four sign-ups from one address within the hour, the next waits, before any password is hashed.
        _ = try await page(f, "development/signup", form: ["email": "dave@example.com", "password": "a long password"])
        let held = try await page(f, "development/signup", form: ["email": "erin@example.com", "password": "a long password"])
        #expect(held.0 == 429 && held.3["retry-after"] != nil)
        #expect(try f.app.store.accounts.user(container: f.container, email: "erin@example.com") == nil)
    }

    @Test func discoverabilityIsOptInAndChangeable() async throws {
        let f = try await APIFixture()
        // Carol signs up without opting in; Dave opts in.
        _ = try await page(f, "development/signup", form: ["email": "carol@example.com", "password": "a long password", "firstName": "Carol"])
        _ = try await page(f, "development/signup", form: ["email": "dave@example.com", "password": "a long password", "firstName": "Dave", "discoverable": "on"])
        let carol = try #require(try f.app.store.accounts.user(container: f.container, email: "carol@example.com"))
        let dave = try #require(try f.app.store.accounts.user(container: f.container, email: "dave@example.com"))
        #expect(!carol.discoverable && carol.discoverabilityChangedAt == nil && dave.discoverable && dave.discoverabilityChangedAt != nil)
        // Carol opts in later on the account page, which records when.
        let saved = try await page(f, "development/account", form: ["email": "carol@example.com", "password": "a long password", "discoverable": "on"])
        #expect(saved.0 == 200 && saved.1.contains("can find you"))
        #expect(try f.app.store.accounts.user(container: f.container, email: "carol@example.com")?.discoverable == true)
        let off = try await page(f, "development/account", form: ["email": "carol@example.com", "password": "a long password"])
        #expect(off.1.contains("Nobody can find you"))
        let after = try #require(try f.app.store.accounts.user(container: f.container, email: "carol@example.com"))
        #expect(!after.discoverable && after.discoverabilityChangedAt != nil)
        #expect(try await page(f, "development/account", form: ["email": "carol@example.com", "password": "wrong"]).0 == 401)
    }

    @Test func userTextIsEscaped() async throws {
        let f = try await APIFixture()
        let r = try await page(f, "development/signup", form: ["email": "<script>alert(1)</script>", "password": "a long password"])
        #expect(r.0 == 400 && r.1.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !r.1.contains("<script>alert"))
        #expect(try await page(f, "development/signin".replacingOccurrences(of: "development", with: "staging")).0 == 404)
    }
}
