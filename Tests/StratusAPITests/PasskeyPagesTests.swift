import Foundation
import Testing
@testable import StratusAPI
import StratusHTTP
import StratusJSON
import StratusModel
import StratusStore
import StratusTestSupport

/// The sign-in pages' passkey endpoints over real sockets, with the tests' P-256 authenticator: a ceremony begins
/// for one browser and ends once; what another browser, a replay, another site or a closed way of signing up sends
/// is refused and makes no account.
@Suite struct PasskeyPagesTests {
    static let publicURL = "http://localhost:8080"

    static func setUp(allow: Set<SignUpWay> = [.password, .passkey]) async throws -> APIFixture {
        let f = try await APIFixture(configure: { $0.http.publicURL = PasskeyPagesTests.publicURL })
        try f.app.store.accounts.setSignUpWays(allow, container: f.container)
        _ = try f.app.store.credentials.createAPIToken(container: f.container, environment: .development, name: "web app",
                                                       allowedOrigins: [ProviderWebSignInTests.app])
        return f
    }

    /// The server's socket (the public URL names another host, as behind a proxy).
    static func url(_ f: APIFixture, _ path: String) -> String {
        "\(f.app.url)auth/1/\(f.container.rawValue)/development/\(path)"
    }

    static func begin(_ f: APIFixture, _ purpose: String) async throws -> (options: JSON, cookie: String?, status: Int) {
        let r = try await ProviderWebSignInTests.hop(url(f, "passkey/options?purpose=\(purpose)&callback=\(APIFixture.encode(ProviderWebSignInTests.app + "/done"))"),
                                                     method: "POST", form: "")
        return ((try? JSON.parse(r.body)) ?? .null, ProviderWebSignInTests.binding(r), r.status)
    }

    static func registration(_ a: PasskeyCeremonyTests.Authenticator, challenge: String,
                             origin: String = publicURL) -> String {
        let client = PasskeyCeremonyTests.Authenticator.clientData("webauthn.create", challenge: challenge, origin: origin)
        let attestation = a.attestation(a.authData(count: 0, attested: true))
        return SignInPages.form([("kind", "create"), ("id", IdentityKey.base64URLEncoded(a.credentialID)),
                                 ("clientDataJSON", IdentityKey.base64URLEncoded(client)),
                                 ("attestationObject", IdentityKey.base64URLEncoded(attestation))])
    }

    @Test func anAccountIsMadeWithAPasskeyOnceAndOnlyByItsBrowser() async throws {
        let f = try await Self.setUp()
        let a = PasskeyCeremonyTests.Authenticator()
        let (options, cookie, status) = try await Self.begin(f, "create-account")
        #expect(status == 200 && options["rpId"]?.string == "localhost" && options["user"]?["id"]?.string != nil)
        let challenge = try #require(options["challenge"]?.string)
        let finish = Self.url(f, "passkey/finish?callback=\(APIFixture.encode(ProviderWebSignInTests.app + "/done"))")

        // Another browser (without the cookie), and another site, are refused; each spends nothing of the real one.
        let stranger = try await ProviderWebSignInTests.hop(finish, method: "POST", form: Self.registration(a, challenge: challenge))
        #expect(stranger.status == 400, "\(String(decoding: stranger.body, as: UTF8.self))")
        let (options2, cookie2, _) = try await Self.begin(f, "create-account")
        let elsewhere = try await ProviderWebSignInTests.hop(finish, method: "POST",
                                                             form: Self.registration(a, challenge: options2["challenge"]?.string ?? "", origin: "http://evil.example"),
                                                             cookie: cookie2)
        #expect(elsewhere.status == 400 && String(decoding: elsewhere.body, as: UTF8.self).contains("another site"))
        #expect(try f.app.store.accounts.users(container: f.container).isEmpty)

        let (options3, cookie3, _) = try await Self.begin(f, "create-account")
        let form = Self.registration(a, challenge: options3["challenge"]?.string ?? "")
        let made = try await ProviderWebSignInTests.hop(finish, method: "POST", form: form, cookie: cookie3)
        let landed = try #require(made.headers["location"], "\(String(decoding: made.body, as: UTF8.self))")
        let token = try #require(URLComponents(string: landed)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        let caller = try await f.call("users/caller", user: token)
        let me = try #require(caller.json["userRecordName"]?.string)
        #expect(me == String(decoding: IdentityKey.base64URL(options3["user"]?["id"]?.string ?? "") ?? Data(), as: UTF8.self))
        #expect(try f.app.store.passkeys.count(of: me, container: f.container) == 1)
        // The same answer again: its ceremony is spent.
        let replay = try await ProviderWebSignInTests.hop(finish, method: "POST", form: form, cookie: cookie3)
        #expect(replay.status == 400 && String(decoding: replay.body, as: UTF8.self).contains("used already"))
        #expect(try f.app.store.accounts.users(container: f.container).count == 1)
        _ = cookie
    }

    @Test func passkeysNeedAPublicURLAndTheOperatorsLeaveToMakeAccounts() async throws {
        let plain = try await APIFixture()
        #expect(try await Self.begin(plain, "sign-in").status == 404, "no --public-url, no passkeys")
        let page = try await ProviderWebSignInTests.hop(Self.url(plain, "signin"))
        #expect(!String(decoding: page.body, as: UTF8.self).contains("data-passkey"))

        let f = try await Self.setUp(allow: [.password])
        let refused = try await Self.begin(f, "create-account")
        #expect(refused.status == 403 && refused.options["serverErrorCode"]?.string == "ACCESS_DENIED")
        #expect(try await Self.begin(f, "sign-in").status == 200, "signing in with a passkey stays open")
        #expect(try await Self.begin(f, "add").status == 404, "adding one needs the account proven first")
        let signin = String(decoding: try await ProviderWebSignInTests.hop(Self.url(f, "signin")).body, as: UTF8.self)
        #expect(signin.contains("Create an account"))

        // Accounts made by providers alone: no page offers to make one any other way.
        let closed = try await Self.setUp(allow: [.provider])
        let closedSignIn = String(decoding: try await ProviderWebSignInTests.hop(Self.url(closed, "signin")).body, as: UTF8.self)
        #expect(!closedSignIn.contains("Create an account") && closedSignIn.contains(#"name="password""#), "existing accounts still sign in")
        let closedSignUp = String(decoding: try await ProviderWebSignInTests.hop(Self.url(closed, "signup")).body, as: UTF8.self)
        #expect(!closedSignUp.contains(#"name="password""#) && !closedSignUp.contains("data-passkey")
                && closedSignUp.contains("does not make new accounts"), "\(closedSignUp)")
    }
    /// A provider's identity whose verified email is an account's that signs in with a passkey is linked once that
    /// passkey proves the account, from the link page's own passkey button.
    @Test func aPasskeyProvesTheAccountAProviderLinksTo() async throws {
        let f = try await Self.setUp()
        let idp = try await StandInOpenIDProvider()
        defer { Task { await idp.stop() } }
        idp.webUser(subject: "web.pk", email: "keys@example.com", clientSecret: "s3cret")
        try f.app.store.identities.saveProvider(try IdentityProvider(name: "keycloak", issuer: idp.issuer, clientIDs: ["com.example.web"]),
                                                container: f.container, clientSecret: "s3cret")
        let a = PasskeyCeremonyTests.Authenticator()
        let credential = try PasskeyCeremony.register(attestationObject: a.attestation(a.authData(count: 0, attested: true)),
                                                      PasskeyCeremonyTests.rp)
        let owner = try await BlockingWork.shared.run {
            let u = try f.app.store.accounts.createUser(container: f.container, email: "keys@example.com", password: "a long password")
            try f.app.store.passkeys.add(credentialID: IdentityKey.base64URLEncoded(credential.id), publicKey: credential.publicKey,
                                         signCount: 0, user: u.userRecordName, container: f.container)
            return u
        }
        let start = try await ProviderWebSignInTests.hop(Self.url(f, "provider/keycloak?callback=\(APIFixture.encode(ProviderWebSignInTests.app + "/done"))"))
        let authorize = try #require(start.headers["location"])
        // The provider sends the browser to the public URL's callback: here, to the server's own socket.
        let back = try #require(try await ProviderWebSignInTests.hop(authorize).headers["location"])
        let callback = back.replacingOccurrences(of: Self.publicURL + "/", with: f.app.url)
        let asked = try await ProviderWebSignInTests.hop(callback, cookie: ProviderWebSignInTests.binding(start))
        let page = String(decoding: asked.body, as: UTF8.self)
        let finish = try #require(page.firstMatch(of: #/data-finish="([^"]+)"/#).map { String($0.output.1).replacingOccurrences(of: "&amp;", with: "&") })
        #expect(finish.contains("link="), "\(page)")
        let linkCookie = try #require(ProviderWebSignInTests.binding(asked))

        let (options, passkeyCookie, _) = try await Self.begin(f, "sign-in")
        let data = a.authData(count: 0), client = PasskeyCeremonyTests.Authenticator.clientData("webauthn.get", challenge: options["challenge"]?.string ?? "",
                                                                                             origin: Self.publicURL)
        let form = SignInPages.form([("kind", "get"), ("id", IdentityKey.base64URLEncoded(a.credentialID)),
                                     ("clientDataJSON", IdentityKey.base64URLEncoded(client)),
                                     ("authenticatorData", IdentityKey.base64URLEncoded(data)),
                                     ("signature", IdentityKey.base64URLEncoded(a.signature(data, client))), ("userHandle", "")])
        let done = try await ProviderWebSignInTests.hop("\(f.app.url)\(finish.dropFirst())", method: "POST", form: form,
                                                        cookie: [passkeyCookie ?? "", linkCookie].joined(separator: "; "))
        #expect(done.headers["location"]?.contains("ckWebAuthToken=") == true, "\(String(decoding: done.body, as: UTF8.self))")
        #expect(try f.app.store.identities.issuers(of: owner.userRecordName, container: f.container) == [idp.issuer])
    }
}
