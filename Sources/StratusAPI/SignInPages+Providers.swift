import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusHTTP
import StratusModel
import StratusStore

/// Signing in with a provider on the web: the authorization-code flow with PKCE. The sign-in page's button
/// (`GET /auth/1/{container}/{environment}/provider/{name}`, with the page's `callback` or `origin`) begins a
/// `WebSignIn` — random `state`, nonce and PKCE verifier, bound to the browser by a cookie — and sends the browser
/// to the provider; the provider sends it back to the container's one callback path (`/auth/1/{container}/callback`,
/// by GET, or by a cross-site POST with `response_mode=form_post`, as Apple answers). The callback takes the sign-in
/// once, trades the code (with the verifier and the client secret) at the provider's token endpoint, verifies the
/// identity token (its nonce raw), and hands the session over as a password sign-in does. What goes wrong is said
/// on the page (or to the app that opened the window), counted in the sign-in throttle, and signs no one in.
extension SignInPages {
    static let bindingCookie = "stratus_signin"

    func registerProviderRoutes(_ router: inout Router) {
        let pages = self
        router.add(.get, "/auth/1/{container}/{environment}/provider/{name}") { req in
            try await pages.beginProviderSignIn(req)
        }
        router.add(.get, "/auth/1/{container}/callback") { req in try await pages.providerCallback(req) }
        router.add(.post, "/auth/1/{container}/callback", bodyLimit: 64 * 1024) { req in
            try await pages.providerCallback(req)
        }
    }

    /// The one path providers send browsers back to, for every environment of the container.
    static func callbackURL(_ req: HTTPRequest, _ container: ContainerID) -> String {
        "\(req.baseURL)/auth/1/\(container.rawValue)/callback"
    }

    static func randomText(_ bytes: Int = 32) -> String {
        var rng = SystemRandomNumberGenerator()
        return IdentityKey.base64URLEncoded(Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &rng) }))
    }

    func beginProviderSignIn(_ req: HTTPRequest) async throws -> HTTPResponse {
        let store = self.store, name = req.parameters["name"] ?? ""
        guard let container = try? ContainerID(req.parameters["container"] ?? ""),
              let environment = ContainerEnvironment(rawValue: req.parameters["environment"] ?? ""),
              (try? await blocking.run { try store.containerExists(container) }) == true else {
            return html.message("Not found", "There is no such container.", status: .notFound)
        }
        if let refusal = await untrustedDestination(req, container, environment) { return refusal }
        let found = try await blocking.run {
            (try store.identities.provider(name, container: container),
             try store.identities.webSecret(name, container: container))
        }
        guard let provider = found.0, found.1 != nil, let clientID = provider.clientIDs.first else {
            return html.message("Not available", "This app does not sign in with \(name.prefix(64)) on the web.",
                                status: .notFound)
        }
        let endpoints: IdentityKeySets.Endpoints
        do {
            endpoints = try await identityKeys.endpoints(issuer: provider.issuer)
        } catch {
            return html.message("Try again later",
                                "\(provider.name) cannot be reached just now. Try again in a minute.",
                                status: .serviceUnavailable)
        }
        let flow = WebSignIn(state: Self.randomText(), binding: Self.randomText(), container: container,
                             environment: environment, provider: provider.name, nonce: Self.randomText(),
                             verifier: Self.randomText(), callback: req.query("callback"), origin: req.query("origin"),
                             address: req.clientAddress, expiresAt: WallClock.nowMillis() + WebSignIn.lifetime)
        do {
            try await blocking.run { try store.identities.beginWebSignIn(flow) }
        } catch let e as StratusError where e.code == .throttled {
            var r = html.message("Try again later",
                                 "Too many sign-ins were begun from here just now. Try again in a minute.",
                                 status: .tooManyRequests)
            r.headers["retry-after"] = "60"
            return r
        }
        let apple = provider.issuer == IdentityProvider.appleIssuer
        let challenge = IdentityKey.base64URLEncoded(Data(SHA256.hash(data: Data(flow.verifier.utf8))))
        var parts = URLComponents(url: endpoints.authorization, resolvingAgainstBaseURL: false)
        let given = parts?.queryItems ?? []
        parts?.queryItems = given + [
            URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: clientID),
            URLQueryItem(name: "redirect_uri", value: Self.callbackURL(req, container)),
            URLQueryItem(name: "scope", value: apple ? "openid name email" : "openid email profile"),
            URLQueryItem(name: "state", value: flow.state), URLQueryItem(name: "nonce", value: flow.nonce),
            URLQueryItem(name: "code_challenge", value: challenge),
            URLQueryItem(name: "code_challenge_method", value: "S256"),
        ] + (apple ? [URLQueryItem(name: "response_mode", value: "form_post")] : [])
        guard let target = parts?.url?.absoluteString else {
            return html.message("Not available", "\(provider.name)'s sign-in address is not usable.",
                                status: .serviceUnavailable)
        }
        var r = HTTPResponse.redirect(to: target, status: .found)
        // Lax: sent when the provider sends the browser back by GET; a cross-site POST is sent on from here once.
        r.headers["set-cookie"] = "\(Self.bindingCookie)=\(flow.binding); Path=/auth/1/\(container.rawValue)/callback; "
            + "HttpOnly; SameSite=Lax; Max-Age=\(WebSignIn.lifetime / 1000)" + (req.scheme == "https" ? "; Secure" : "")
        return r
    }

    func providerCallback(_ req: HTTPRequest) async throws -> HTTPResponse {
        let fields: [String: String]
        if req.method == .post {
            let items = HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
            fields = Dictionary(items.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        } else {
            fields = Dictionary(["code", "state", "error", "user"].compactMap { k in req.query(k).map { (k, $0) } },
                                uniquingKeysWith: { a, _ in a })
        }
        let binding = req.cookie(Self.bindingCookie)
        // A provider's cross-site POST carries no Lax cookie: sent on once from this origin, where it does.
        if req.method == .post, binding == nil, fields["resent"] == nil {
            let sent = fields.filter { ["code", "state", "error", "user"].contains($0.key) }
            return html.resend(action: req.rawPath, fields: sent)
        }
        let account = "provider-callback:\(req.clientAddress)"
        if case .wait(let seconds) = throttle.check(account: account, address: req.clientAddress) {
            return html.message("Wait", "Too many failed sign-ins from here. Wait \(seconds) seconds and try again.",
                                status: .tooManyRequests)
        }
        let store = self.store, state = fields["state"] ?? ""
        let flow = state.isEmpty || binding == nil ? nil
            : try await blocking.run { try store.identities.takeWebSignIn(state: state, binding: binding ?? "") }
        guard let flow else {
            throttle.failed(account: account, address: req.clientAddress)
            return html.message("Not signed in", "This sign-in was used already, has expired, or was begun in another "
                                + "browser. Start again from the app.", status: .badRequest)
        }
        if fields["error"] != nil {
            return ended("You did not sign in with \(flow.provider).", callback: flow.callback,
                         openerOrigin: flow.origin)
        }
        do {
            let user: ContainerUser
            switch try await signIn(flow, code: fields["code"] ?? "", user: fields["user"], req) {
            case .user(let u): user = u
            case .prove(let holder, let identity):
                throttle.succeeded(account: account)
                return try await proofAsked(flow, account: holder, identity: identity, req)
            }
            let token = try await blocking.run {
                try store.accounts.createWebAuthToken(container: flow.container, environment: flow.environment,
                                                      userRecordName: user.userRecordName,
                                                      lifetime: AccountStore.shortSession)
            }
            throttle.succeeded(account: account)
            return deliver(token, callback: flow.callback, openerOrigin: flow.origin)
        } catch let e as StratusError where e.code == .authenticationFailed || e.code == .badRequest {
            throttle.failed(account: account, address: req.clientAddress)
            return ended("Signing in with \(flow.provider) did not work: \(e.reason).", callback: flow.callback,
                         openerOrigin: flow.origin)
        } catch let e as StratusError {
            return ended("Signing in with \(flow.provider) did not work: \(e.reason).", callback: flow.callback,
                         openerOrigin: flow.origin)
        }
    }

    /// What a verified sign-in with a provider leads to: its user, or the account its user must prove first.
    private enum Outcome {
        case user(ContainerUser)
        case prove(ContainerUser, IdentityClaims)
    }

    /// The sign-in page, asking its user to prove the account that has the identity's verified email: the identity
    /// waits, bound to this browser, and the proof (the password, or a passkey) links them.
    private func proofAsked(_ flow: WebSignIn, account: ContainerUser, identity: IdentityClaims,
                            _ req: HTTPRequest) async throws -> HTTPResponse {
        let link = PendingLink(token: Self.randomText(), binding: Self.randomText(), container: flow.container,
                               environment: flow.environment, provider: flow.provider, identity: identity,
                               user: account.userRecordName, callback: flow.callback, origin: flow.origin,
                               address: req.clientAddress, expiresAt: WallClock.nowMillis() + PendingLink.lifetime)
        let store = self.store
        try await blocking.run { try store.identities.beginLink(link) }
        var page = PageContext(container: flow.container, environment: flow.environment, callback: flow.callback,
                               openerOrigin: flow.origin, mode: .signin)
        page.link = link.token
        let name = flow.provider == "apple" ? "Apple" : flow.provider
        var r = form(page, message: nil, notice: "An account here already has the email \(name) gave. Sign in to it "
                     + "once to link them: from then on, \(name) signs you in to it too.", email: account.email)
        r.headers["set-cookie"] = "\(Self.linkCookie)=\(link.binding); Path=/auth/1/\(flow.container.rawValue)/; "
            + "HttpOnly; SameSite=Strict; Max-Age=\(PendingLink.lifetime / 1000)"
            + (req.scheme == "https" ? "; Secure" : "")
        return r
    }

    static let linkCookie = "stratus_link"

    /// Links the waiting identity of `token` to `user`, who just proved their account in this browser; refused
    /// (AUTHENTICATION_FAILED, and nothing linked) when the link is used, expired, another browser's, or waits for
    /// another account.
    func completeLink(_ token: String, user: String, _ req: HTTPRequest) async throws {
        let store = self.store, binding = req.cookie(Self.linkCookie) ?? ""
        try await blocking.run {
            guard let link = try store.identities.takeLink(token, binding: binding),
                  link.container.rawValue == req.parameters["container"] else {
                throw StratusError.authenticationFailed("linking was used already, has expired, or was begun in "
                                                        + "another browser: sign in with the provider again")
            }
            guard link.user == user else {
                throw StratusError.authenticationFailed("that is not the account with the provider's email: "
                                                        + "nothing was linked")
            }
            _ = try store.identities.signIn(link.identity, container: link.container, proven: user)
        }
    }

    /// The code traded at the provider's token endpoint, its identity token verified with the sign-in's nonce, and
    /// the user it is. Apple sends the name once, in the callback's `user` (`{"name": {"firstName", "lastName"}}`).
    private func signIn(_ flow: WebSignIn, code: String, user: String?,
                        _ req: HTTPRequest) async throws -> Outcome {
        let store = self.store
        let (found, kept) = try await blocking.run {
            (try store.identities.provider(flow.provider, container: flow.container),
             try store.identities.webSecret(flow.provider, container: flow.container))
        }
        guard let provider = found, let made = kept, let clientID = provider.clientIDs.first, !code.isEmpty else {
            throw StratusError.authenticationFailed("the provider sent no code, or is no longer trusted")
        }
        let secret = try clientSecrets.value(made, client: clientID)
        let endpoints = try await identityKeys.endpoints(issuer: provider.issuer)
        var request = URLRequest(url: endpoints.token)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.form([("grant_type", "authorization_code"), ("code", code),
                                           ("redirect_uri", Self.callbackURL(req, flow.container)),
                                           ("client_id", clientID), ("client_secret", secret),
                                           ("code_verifier", flow.verifier)]).utf8)
        guard let answer = try? JSON.parse(try await identityKeys.send(request)),
              let idToken = answer["id_token"]?.string else {
            throw StratusError.authenticationFailed("the provider did not take the code")
        }
        let token = try IdentityToken(idToken)
        let keys = try await identityKeys.keys(issuer: provider.issuer, keyID: token.keyID)
        let expected = IdentityToken.Expectations(issuer: provider.issuer, audiences: [clientID],
                                                  nonce: .raw(flow.nonce), now: WallClock.nowMillis())
        let claims = try token.verify(keys: keys, expected)
        let name = user.flatMap { try? JSON.parse(Data($0.utf8)) }?["name"]
        let until = token.nonceKeptUntil(expected)
        return try await blocking.run {
            guard try store.identities.takeNonce(issuer: provider.issuer, nonce: flow.nonce, expiresAt: until) else {
                throw StratusError.authenticationFailed("this identity token has signed in already")
            }
            if let account = try store.identities.accountToProve(claims, container: flow.container) {
                return .prove(account, claims)
            }
            return .user(try store.identities.signIn(claims, container: flow.container,
                                                     givenName: name?["firstName"]?.string,
                                                     familyName: name?["lastName"]?.string))
        }
    }

    static func form(_ items: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return items.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
            .joined(separator: "&")
    }
}
