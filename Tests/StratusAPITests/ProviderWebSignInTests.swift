import Crypto
import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusJSON
import StratusModel
import StratusStore
import StratusTestSupport

/// Signing in with a provider on the web, hop by hop as a browser makes it (each redirect followed by hand, the
/// sign-in cookie kept), against the stand-in provider: the authorization-code flow with PKCE, by redirect and by
/// a cross-site form POST; each `state` once and only from the browser that began it.
@Suite struct ProviderWebSignInTests {
    static let app = "http://127.0.0.1:9"

    /// One request over a fresh connection: its status, headers (lowercased) and body.
    static func hop(_ url: String, method: String = "GET", form: String? = nil, cookie: String? = nil) async throws -> RawClient.Response {
        let u = try #require(URL(string: url))
        let c = try RawClient(port: UInt16(u.port ?? 80))
        defer { c.close() }
        var head = "\(method) \(u.path)\(u.query.map { "?" + $0 } ?? "") HTTP/1.1\r\nHost: \(u.host ?? ""):\(u.port ?? 80)\r\nConnection: close\r\n"
        if let cookie { head += "Cookie: \(cookie)\r\n" }
        if let form { head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n" }
        c.send(head + "\r\n" + (form ?? ""))
        return try #require(await c.response())
    }

    /// The fixture with the stand-in trusted as `name` for web sign-in, and an API token whose origins list the app.
    static func setUp(_ name: String, host: String = "127.0.0.1") async throws -> (APIFixture, StandInOpenIDProvider) {
        let f = try await APIFixture()
        let idp = try await StandInOpenIDProvider(host: host)
        idp.webUser(subject: "web.001", email: "web@example.com", clientSecret: "s3cret")
        try f.app.store.identities.saveProvider(try IdentityProvider(name: name, issuer: idp.issuer, clientIDs: ["com.example.web"]),
                                                container: f.container, clientSecret: "s3cret")
        _ = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web app",
                                                       allowedOrigins: [app])
        return (f, idp)
    }

    var begin: (APIFixture, String) -> String {
        { f, name in "\(f.app.url)auth/1/\(f.container.rawValue)/development/provider/\(name)?callback=\(APIFixture.encode(Self.app + "/done"))" }
    }

    static func binding(_ r: RawClient.Response) -> String? {
        r.headers["set-cookie"]?.split(separator: ";").first.map(String.init)
    }

    @Test func theCodeFlowSignsInByRedirectAndEachStateOnce() async throws {
        let (f, idp) = try await Self.setUp("keycloak")
        defer { Task { await idp.stop() } }
        let page = try await Self.hop("\(f.app.url)auth/1/\(f.container.rawValue)/development/signin?callback=\(APIFixture.encode(Self.app + "/done"))")
        #expect(String(decoding: page.body, as: UTF8.self).contains("Sign in with keycloak"))

        let start = try await Self.hop(begin(f, "keycloak"))
        #expect(start.status == 302)
        let authorize = try #require(start.headers["location"])
        #expect(authorize.hasPrefix(idp.issuer + "/authorize?") && authorize.contains("code_challenge_method=S256") && authorize.contains("nonce="))
        let cookie = try #require(Self.binding(start))
        #expect(start.headers["set-cookie"]?.contains("HttpOnly") == true && start.headers["set-cookie"]?.contains("SameSite=Lax") == true)

        let back = try await Self.hop(authorize)
        let callback = try #require(back.headers["location"])
        #expect(callback.hasPrefix("\(f.app.url)auth/1/\(f.container.rawValue)/callback?code="))
        // Another browser (no cookie, or another's) cannot end it: and the state is spent.
        let stranger = try await Self.hop(callback, cookie: "\(SignInPages.bindingCookie)=someone-else")
        #expect(stranger.status == 400 && String(decoding: stranger.body, as: UTF8.self).contains("another browser"))
        #expect(try f.app.store.accounts.users(container: f.container).isEmpty)

        // Again, from the right browser, to the end.
        let start2 = try await Self.hop(begin(f, "keycloak"))
        let back2 = try await Self.hop(try #require(start2.headers["location"]))
        let callback2 = try #require(back2.headers["location"])
        let done = try await Self.hop(callback2, cookie: try #require(Self.binding(start2)))
        #expect(done.status == 303 || done.status == 302, "\(String(decoding: done.body, as: UTF8.self))")
        let landed = try #require(done.headers["location"])
        #expect(landed.hasPrefix(Self.app + "/done?ckWebAuthToken="))
        let token = try #require(URLComponents(string: landed)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        let caller = try await f.call("users/caller", user: token)
        let me = try #require(caller.json["userRecordName"]?.string)
        #expect(try f.app.store.accounts.user(container: f.container, userRecordName: me)?.email == "web@example.com")

        // The same callback once more (a replay from the history): refused, nobody else signed in.
        let replay = try await Self.hop(callback2, cookie: try #require(Self.binding(start2)))
        #expect(replay.status == 400)
        #expect(try f.app.store.accounts.users(container: f.container).count == 1)
        _ = cookie
    }

    /// Apple answers with a cross-site POST (`response_mode=form_post`), which carries no Lax cookie: the page sends
    /// it on once from Stratus's own origin, where the cookie goes with it; the name Apple sends once is kept.
    @Test func aCrossSiteFormPostIsSentOnOnceAndSignsIn() async throws {
        let (f, idp) = try await Self.setUp("apple-web")
        defer { Task { await idp.stop() } }
        // The stand-in behaves as Apple for a provider whose authorize request asks form_post; here asked by hand.
        let start = try await Self.hop(begin(f, "apple-web"))
        let authorize = try #require(start.headers["location"]) + "&response_mode=form_post"
        let posted = String(decoding: try await Self.hop(authorize).body, as: UTF8.self)
        func field(_ name: String) -> String? {
            posted.firstMatch(of: try! Regex(#"name="\#(name)" value='?"?([^"']*)"#)).map { String($0.output[1].substring ?? "") }
        }
        let form = SignInPages.form([("code", try #require(field("code"))), ("state", try #require(field("state"))),
                                     ("user", #"{"name":{"firstName":"Web","lastName":"User"}}"#)])
        let callback = "\(f.app.url)auth/1/\(f.container.rawValue)/callback"
        let resend = try await Self.hop(callback, method: "POST", form: form)
        let page = String(decoding: resend.body, as: UTF8.self)
        #expect(resend.status == 200 && page.contains(#"name="resent""#) && page.contains("/-/static/resend.js"), "\(page)")
        let done = try await Self.hop(callback, method: "POST", form: form + "&resent=1", cookie: try #require(Self.binding(start)))
        let landed = try #require(done.headers["location"], "\(String(decoding: done.body, as: UTF8.self))")
        let token = try #require(URLComponents(string: landed)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        let caller = try await f.call("users/caller", user: token)
        #expect(caller.json["nameComponents"]?["givenName"]?.string == "Web", "\(caller.text)")
    }

    /// What the provider refuses, or the user declines, signs no one in and says so.
    @Test func aRefusedCodeOrADeclineSignsNoOneIn() async throws {
        let (f, idp) = try await Self.setUp("keycloak")
        defer { Task { await idp.stop() } }
        idp.webUser(subject: "web.002", clientSecret: "another secret")
        let start = try await Self.hop(begin(f, "keycloak"))
        let authorize = try #require(start.headers["location"])
        let callback = try #require(try await Self.hop(authorize).headers["location"])
        let refused = try await Self.hop(callback, cookie: try #require(Self.binding(start)))
        #expect(refused.headers["location"]?.contains("ckError=") == true, "the app hears why")
        #expect(idp.tokenRequests == 1)

        let start2 = try await Self.hop(begin(f, "keycloak"))
        let authorize2 = try #require(start2.headers["location"])
        let state = try #require(URLComponents(string: authorize2)?.queryItems?.first { $0.name == "state" }?.value)
        let declined = try await Self.hop("\(f.app.url)auth/1/\(f.container.rawValue)/callback?error=access_denied&state=\(APIFixture.encode(state))",
                                          cookie: try #require(Self.binding(start2)))
        #expect(declined.headers["location"]?.contains("ckError=") == true)
        #expect(try f.app.store.accounts.users(container: f.container).isEmpty)
        // A provider the container does not sign in with on the web has no button and no flow.
        let unknown = try await Self.hop(begin(f, "nobody"))
        #expect(unknown.status == 404)
    }
    /// The browser's way through the provider back to the callback: the callback's answer and the sign-in cookie.
    func providerRoundTrip(_ f: APIFixture, _ name: String) async throws -> RawClient.Response {
        let start = try await Self.hop(begin(f, name))
        let authorize = try #require(start.headers["location"])
        let callback = try #require(try await Self.hop(authorize).headers["location"])
        return try await Self.hop(callback, cookie: Self.binding(start))
    }

    /// A provider's verified email that is an existing account's signs in to nothing until that account is proven
    /// once, in the same browser: a wrong password, another browser, another account's password or a used link
    /// links nothing; the right password links them, and from then on the provider signs in to that account.
    @Test func aProviderLinksToAnExistingAccountOnlyOnceItIsProven() async throws {
        let (f, idp) = try await Self.setUp("keycloak")
        defer { Task { await idp.stop() } }
        let owner = try await BlockingWork.shared.run {
            try f.app.store.accounts.createUser(container: f.container, email: "WEB@example.com", password: "the owner's password")
        }
        _ = try await BlockingWork.shared.run {
            try f.app.store.accounts.createUser(container: f.container, email: "other@example.com", password: "another password")
        }
        let asked = try await providerRoundTrip(f, "keycloak")
        let page = String(decoding: asked.body, as: UTF8.self)
        #expect(asked.status == 200 && page.contains("already has the email keycloak gave"), "\(page)")
        #expect(!page.contains("ckWebAuthToken") && asked.headers["location"] == nil, "no session before the proof")
        let link = try #require(page.firstMatch(of: #/name="link" value="([^"]+)"/#).map { String($0.output.1) })
        let cookie = try #require(Self.binding(asked))
        #expect(cookie.hasPrefix(SignInPages.linkCookie + "=") && asked.headers["set-cookie"]?.contains("SameSite=Strict") == true)
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container).isEmpty)

        let signin = "\(f.app.url)auth/1/\(f.container.rawValue)/development/signin?callback=\(APIFixture.encode(Self.app + "/done"))"
        func prove(_ email: String, _ password: String, link: String, cookie: String?) async throws -> RawClient.Response {
            try await Self.hop(signin, method: "POST", form: SignInPages.form([("email", email), ("password", password), ("link", link)]),
                               cookie: cookie)
        }
        let wrong = try await prove("web@example.com", "not the password", link: link, cookie: cookie)
        #expect(wrong.status == 401 && String(decoding: wrong.body, as: UTF8.self).contains(#"name="link""#), "the page asks again")
        let elsewhere = try await prove("web@example.com", "the owner's password", link: link, cookie: "\(SignInPages.linkCookie)=another")
        #expect(elsewhere.status == 401 && String(decoding: elsewhere.body, as: UTF8.self).contains("another browser"))
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container).isEmpty)

        // The link is spent by that attempt: a new round trip, proven with another account's password, links nothing.
        let asked2 = try await providerRoundTrip(f, "keycloak")
        let link2 = try #require(String(decoding: asked2.body, as: UTF8.self).firstMatch(of: #/name="link" value="([^"]+)"/#).map { String($0.output.1) })
        let other = try await prove("other@example.com", "another password", link: link2, cookie: Self.binding(asked2))
        #expect(other.status == 401 && String(decoding: other.body, as: UTF8.self).contains("not the account"))
        #expect(try f.app.store.identities.signInWays(container: f.container).values.allSatisfy { $0.issuers.isEmpty })

        let asked3 = try await providerRoundTrip(f, "keycloak")
        let link3 = try #require(String(decoding: asked3.body, as: UTF8.self).firstMatch(of: #/name="link" value="([^"]+)"/#).map { String($0.output.1) })
        let proven = try await prove("web@example.com", "the owner's password", link: link3, cookie: Self.binding(asked3))
        let landed = try #require(proven.headers["location"], "\(String(decoding: proven.body, as: UTF8.self))")
        #expect(landed.hasPrefix(Self.app + "/done?ckWebAuthToken="))
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container) == [idp.issuer])
        let again = try await prove("web@example.com", "the owner's password", link: link3, cookie: Self.binding(asked3))
        #expect(again.status == 401, "a link is used once")

        // From now on the provider alone signs in to the owner's account.
        let direct = try await providerRoundTrip(f, "keycloak")
        let back = try #require(direct.headers["location"])
        let token = try #require(URLComponents(string: back)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        #expect(try await f.call("users/caller", user: token).json["userRecordName"]?.string == owner.userRecordName)
        #expect(try f.app.store.accounts.users(container: f.container).count == 2, "no account was made")
    }
    /// Sign in with Apple on the web with the operator's key: the client secret the token endpoint gets is one
    /// Stratus made, which Apple (the stand-in, checking as Apple does) takes; a key that is not Apple's is refused.
    @Test func appleOnTheWebSendsAClientSecretMadeWithTheKey() async throws {
        let f = try await APIFixture()
        let idp = try await StandInOpenIDProvider()
        defer { Task { await idp.stop() } }
        idp.webUser(subject: "apple.001", email: "a@privaterelay.appleid.com", clientSecret: "unused")
        idp.expectAppleClientSecrets(ClientSecretsTests.client)
        _ = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web app",
                                                       allowedOrigins: [Self.app])
        let provider = try IdentityProvider(name: "apple", issuer: idp.issuer, clientIDs: ["com.example.web"])
        try f.app.store.identities.saveProvider(provider, container: f.container, secret: .apple(try ClientSecretsTests.apple()))
        let page = String(decoding: try await Self.hop("\(f.app.url)auth/1/\(f.container.rawValue)/development/signin").body, as: UTF8.self)
        #expect(page.contains("Sign in with Apple"))
        let done = try await providerRoundTrip(f, "apple")
        #expect(done.headers["location"]?.contains("ckWebAuthToken=") == true, "\(String(decoding: done.body, as: UTF8.self))")

        try f.app.store.identities.saveProvider(provider, container: f.container,
                                                secret: .apple(try ClientSecretsTests.apple(P256.Signing.PrivateKey())))
        let refused = try await providerRoundTrip(f, "apple")
        #expect(refused.headers["location"]?.contains("ckError=") == true)
        #expect(try f.app.store.accounts.users(container: f.container).count == 1)
    }
}
