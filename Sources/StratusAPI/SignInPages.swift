import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// Where `redirectURL` sends users: sign in with a container account (or create one; in Development also
/// continue as a test user), then hand `ckWebAuthToken` back the way CloudKit JS expects — by redirect to the
/// callback URL, or by `postMessage` to the window that opened the sign-in page.
final class SignInPages: Sendable {
    /// What a page does: sign in, create an account, or change an account's settings (discoverability).
    enum Mode: String, Sendable {
        case signin, signup, account
    }

    let store: ServerStore
    let blocking: BlockingWork
    let throttle: SignInThrottle
    let html: AuthPages
    /// The OpenID providers' keys and endpoints, for signing in with them on the web.
    let identityKeys: IdentityKeySets
    /// The client secrets web sign-ins send, Apple's made and kept here.
    let clientSecrets = ClientSecrets()
    /// Who passkeys are for; nil: the server has no `--public-url`, and the pages offer no passkeys.
    let relyingParty: PasskeyCeremony.RelyingParty?
    init(store: ServerStore, blocking: BlockingWork, throttle: SignInThrottle, html: AuthPages,
         identityKeys: IdentityKeySets, relyingParty: PasskeyCeremony.RelyingParty?) {
        self.relyingParty = relyingParty
        self.store = store
        self.blocking = blocking
        self.throttle = throttle
        self.html = html
        self.identityKeys = identityKeys
    }

    func register(_ router: inout Router) {
        let pages = self
        for mode in [Mode.signin, .signup, .account] {
            router.add(.get, "/auth/1/{container}/{environment}/\(mode.rawValue)") { req in try await pages.handle(req,
                    mode) }
            router.add(.post, "/auth/1/{container}/{environment}/\(mode.rawValue)",
                       bodyLimit: 16 * 1024) { req in try await pages.handle(req, mode) }
        }
        registerProviderRoutes(&router)
        registerPasskeyRoutes(&router)
    }

    /// What the CloudKit group's owner answers for a sign-in page: a refused attempt is its form again
    /// (`SignInFailure`), or for a program's JSON sign-in CloudKit's envelope.
    static let errors: RouteGroup.Errors = { error, path in
        guard let f = error as? SignInFailure else { return ErrorEnvelope.errors(error, path) }
        return f.error is PasswordWork.Busy ? f.reply.busy() : f.reply.refused(f.error)
    }

    func handle(_ req: HTTPRequest, _ mode: Mode) async throws -> HTTPResponse {
        let store = self.store
        guard let container = try? ContainerID(req.parameters["container"] ?? ""), let environment = ContainerEnvironment(rawValue: req.parameters["environment"] ?? ""),
              (try? await blocking.run { try store.containerExists(container) }) == true else {
            return html.message("Not found", "There is no such container.", status: .notFound)
        }
        let callback = req.query("callback"), openerOrigin = req.query("origin")
        if let refusal = await untrustedDestination(req, container, environment) { return refusal }
        var page = await offers(PageContext(container: container, environment: environment, callback: callback,
                                            openerOrigin: openerOrigin, mode: mode))
        // The user gave up in the window an app opened: the app hears so (CloudKit JS's SIGN_IN_FAILED).
        if req.method == .get, req.query("cancel") != nil { return ended("You cancelled signing in.",
                callback: callback, openerOrigin: openerOrigin) }
        if req.method == .get { return form(page, message: nil) }
        // A program (StratusKit's sign-in helper, a CLI) asks for JSON, naming a live API token of this environment:
        // the token comes back in the answer instead of through a page, and failures in CloudKit's envelope.
        let wantsJSON = req.method == .post && (req.headers["accept"] ?? "").contains("application/json")
        if wantsJSON {
            let secret = req.query("ckAPIToken") ?? ""
            let token = try? await blocking.run { try store.credentials.authenticateAPIToken(secret) }
            guard let token = token ?? nil, token.container == container, token.environment == environment else {
                return ErrorEnvelope.response(.authenticationFailed("a JSON sign-in needs ckAPIToken, a live API token of this container environment"))
            }
        }
        // A form posted from another site is refused: sign-in must happen on this page.
        guard SameOrigin.allows(req) else {
            return html.message("Refused", "This form can only be sent from its own page.", status: .forbidden)
        }
        let form = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name,
                $0.value) }, uniquingKeysWith: { a, _ in a })
        if mode == .signin, let link = form["link"], !link.isEmpty { (page.link, page.providers) = (link, []) }
        let reply = Reply(pages: self, page: page, wantsJSON: wantsJSON, path: req.rawPath)
        if mode == .signup { return try await signUp(form, req.clientAddress, reply) }
        let user: ContainerUser
        switch await signIn(form, req.clientAddress, page) {
        case .succeeded(let u): user = u
        case .wait(let seconds): return reply.wait(seconds)
        case .busy: return reply.busy()
        case .refused(let error): return reply.refused(error)
        }
        if mode == .account { return await accountSaved(page, user, req) }
        if let refused = await linked(page, user, req) { return refused }
        let lifetime = form["remember"] == "on" ? AccountStore.longSession : AccountStore.shortSession
        let token = try await SignInFailure.within(reply) {
            try await blocking.run { try store.accounts.createWebAuthToken(container: container,
                    environment: environment, userRecordName: user.userRecordName, lifetime: lifetime) }
        }
        if wantsJSON {
            var w = JSONWriter()
            w.beginObject()
            w.field("ckWebAuthToken", token)
            w.field("userRecordName", user.userRecordName)
            w.endObject()
            return .json(w.data)
        }
        return deliver(token, callback: callback, openerOrigin: openerOrigin)
    }

    /// A sign-in that proved an account a provider's identity waits for: the two linked, or the refusal's page.
    private func linked(_ page: PageContext, _ user: ContainerUser, _ req: HTTPRequest) async -> HTTPResponse? {
        guard let link = page.link else { return nil }
        do {
            try await completeLink(link, user: user.userRecordName, req)
            return nil
        } catch {
            throttle.failed(account: "link:\(req.clientAddress)", address: req.clientAddress)
            var page = page
            page.link = nil
            return form(page, message: (error as? StratusError)?.reason ?? "Linking did not work.", status: .code(401))
        }
    }

    /// The page with the other ways it offers: a button per provider on the sign-in page, and whether the sign-up
    /// page makes accounts with a passkey alone.
    private func offers(_ page: PageContext) async -> PageContext {
        var page = page
        let store = self.store, container = page.container
        let ways = (try? await blocking.run { try store.accounts.signUpWays(container: container) }) ?? []
        page.passkeySignUp = relyingParty != nil && ways.contains(.passkey)
        page.passwordSignUp = ways.contains(.password)
        page.signUpOffered = page.passwordSignUp || page.passkeySignUp
        if page.mode == .signin {
            page.providers = (try? await blocking.run { try store.identities.webProviders(container: container) }) ?? []
        }
        return page
    }

    /// The refusal of a link whose destination is not trusted: the token goes only where a live API token of this
    /// environment lists the destination's origin exactly, so a link that names any other destination is refused
    /// before anything is asked or sent. Nil when the link names none, or only trusted ones.
    func untrustedDestination(_ req: HTTPRequest, _ container: ContainerID,
                                      _ environment: ContainerEnvironment) async -> HTTPResponse? {
        let store = self.store
        let targets = [("callback", req.query("callback")), ("origin",
                                                             req.query("origin"))].compactMap { w, t in t.map { (w,
                $0) } }
        guard !targets.isEmpty else { return nil }
        let tokens = (try? await blocking.run { try store.credentials.apiTokens(container: container,
                environment: environment) }) ?? []
        for (what, target) in targets {
            guard let origin = WebOrigin(target,
                                         allowingPath: what == "callback"), what == "origin" || Self.safeCallback(target) != nil,
                  tokens.contains(where: { $0.allowsBrowser(origin: origin.description) }) else {
                return html.untrusted(target: String(target.prefix(200)), container: container.rawValue,
                                      environment: environment.rawValue)
            }
        }
        return nil
    }

    /// Sign-up, where the container allows it, checked before any password is hashed: sign-ups per address and per
    /// server. The same answer
    /// whether or not the address already has an account: sign-up tells no one who is here.
    private func signUp(_ form: [String: String], _ address: String, _ reply: Reply) async throws -> HTTPResponse {
        let store = self.store, container = reply.page.container
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        // The operator may make accounts other ways only (`stratus auth sign-up`).
        let ways = try await blocking.run { try store.accounts.signUpWays(container: container) }
        guard ways.contains(.password) else {
            return reply.refused(StratusError(.accessDenied,
                                              "This app does not make new accounts with an email and a password."))
        }
        if case .wait(let seconds) = throttle.checkSignUp(address: address) { return reply.wait(seconds) }
        try await SignInFailure.within(reply) {
            _ = try await throttle.passwords.run {
                try store.accounts.signUp(container: container, email: email, password: form["password"] ?? "",
                                          firstName: form["firstName"] ?? "",
                                          lastName: form["lastName"] ?? "", discoverable: form["discoverable"] == "on")
            }
        }
        if reply.wantsJSON { return .json(Data(#"{"signedUp":true}"#.utf8)) }
        return signedUp(reply.page, email: email)
    }

    /// A sign-in (or an account page's save) through the throttle: the account, or in Development the test user.
    private func signIn(_ form: [String: String], _ address: String,
                        _ page: PageContext) async -> SignInAttempt<ContainerUser> {
        let store = self.store, container = page.container, mode = page.mode, environment = page.environment
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let testUser = form["testUser"] == "1"
        let account = "user:\(container.rawValue):\(email.lowercased())"
        return await throttle.attempt(account: testUser ? nil : account, address: address,
                                      countsAsFailure: { ($0 as? StratusError)?.code == .authenticationFailed }) { () throws -> ContainerUser in
            if testUser {
                guard environment == .development, mode == .signin else { throw StratusError(.accessDenied,
                        "test users exist in Development only") }
                return try store.accounts.testUser(container: container)
            }
            guard var u = try store.accounts.authenticateUser(container: container, email: email,
                                                              password: form["password"] ?? "") else {
                throw StratusError(.authenticationFailed, "That email and password do not match an account.")
            }
            if mode == .account {
                try store.accounts.setDiscoverable(container: container, userRecordName: u.userRecordName,
                                                   form["discoverable"] == "on")
                u = try store.accounts.user(container: container, userRecordName: u.userRecordName) ?? u
            }
            return u
        }
    }

    /// How a sign-in page answers what stopped it: in CloudKit's envelope for a program that asked for JSON, or as
    /// the page again with the reason.
    struct Reply {
        let pages: SignInPages
        let page: PageContext
        let wantsJSON: Bool
        let path: String

        func wait(_ seconds: Int) -> HTTPResponse {
            if wantsJSON { return ErrorEnvelope.response(StratusError(.throttled,
                                                                      "too many attempts: wait \(seconds) s",
                    retryAfter: seconds)) }
            let what = page.mode == .signup ? "Too many accounts were created from here or on this server just now." : "Too many failed attempts."
            var r = pages.form(page, message: "\(what) Wait \(seconds) second\(seconds == 1 ? "" : "s") and try again.",
                               status: .tooManyRequests)
            r.headers["retry-after"] = String(seconds)
            return r
        }

        func busy() -> HTTPResponse {
            if wantsJSON { return ErrorEnvelope.response(StratusError(.tryAgainLater,
                                                                      "the server is busy signing people in",
                    retryAfter: 5)) }
            var r = pages.form(page, message: "The server is busy signing people in. Try again in a few seconds.",
                               status: .serviceUnavailable)
            r.headers["retry-after"] = "5"
            return r
        }

        func refused(_ error: any Error) -> HTTPResponse {
            var e = error as? StratusError ?? StratusError(.internalError, "\(error)")
            // The envelope redacts for itself, under the uuid it answers with: one redaction, one uuid in the log.
            if wantsJSON { return ErrorEnvelope.response(e, path: path) }
            // An internal error's detail goes to the log under the uuid the page shows, never onto the page.
            if e.code == .internalError { e.reason = ErrorEnvelope.publicReason(e, uuid: UUID().uuidString.lowercased(),
                    path: path) }
            return pages.form(page, message: e.reason,
                              status: .code(e.code == .authenticationFailed ? 401 : e.code.httpStatus))
        }
    }

    /// Where a page is and where its token would go, carried through its forms and links.
    struct PageContext {
        var container: ContainerID
        var environment: ContainerEnvironment
        var callback, openerOrigin: String?
        var mode: Mode
        /// The providers the sign-in page offers a button for.
        var providers: [String] = []
        /// Whether the sign-up page offers an account with a passkey alone.
        var passkeySignUp = false
        /// Whether the sign-up page makes accounts with an email and a password.
        var passwordSignUp = true
        /// Whether the sign-up page makes accounts at all (with a password, or a passkey alone): the sign-in page
        /// links to it only then.
        var signUpOffered = true
        /// The provider identity that this sign-in links to the account, once proven (`PendingLink`'s token).
        var link: String?

        /// The sign-in page's button for a provider, keeping where the session goes.
        func providerLink(_ name: String) -> AuthPages.Link {
            let path = "/auth/1/\(container.rawValue)/\(environment.rawValue)/provider/\(name)"
            return AuthPages.Link(href: path + SignInPages.query(callback: callback, origin: openerOrigin),
                                  label: name == "apple" ? "Apple" : name, first: false)
        }

        func path(_ mode: Mode) -> String {
            "/auth/1/\(container.rawValue)/\(environment.rawValue)/\(mode.rawValue)" + SignInPages.query(callback: callback, origin: openerOrigin)
        }
    }

    /// Only http(s) callbacks of printable ASCII, so a crafted link cannot turn the redirect into script, split the
    /// Location header, or hide its host behind characters a browser strips or reads differently.
    static func safeCallback(_ s: String) -> String? {
        guard s.utf8.count <= 2048, s.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let u = URL(string: s),
              let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else { return nil }
        return s
    }

    func deliver(_ token: String, callback: String?, openerOrigin: String?) -> HTTPResponse {
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        if let callback {
            let sep = callback.contains("?") ? "&" : "?"
            return .redirect(to: callback + sep + "ckWebAuthToken=" + encoded)
        }
        guard let openerOrigin = openerOrigin.flatMap({ WebOrigin($0)?.description }) else {
            return html.message("Signed in",
                                "You are signed in, but this page was not opened by an application this container trusts, so it keeps the session to itself.")
        }
        // postMessage to the opener's origin only, by a script file (no inline script under the CSP).
        return html.handoff(token: token, origin: openerOrigin)
    }

    /// A sign-in that ends without a session: the app that opened the window is told why (`{errorMessage}`), the
    /// callback is sent `ckError`, and a page opened by nobody says so.
    func ended(_ reason: String, callback: String?, openerOrigin: String?) -> HTTPResponse {
        if let callback {
            let sep = callback.contains("?") ? "&" : "?"
            return .redirect(to: callback + sep + "ckError=" + (reason.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
        guard let openerOrigin = openerOrigin.flatMap({ WebOrigin($0)?.description }) else {
            return html.message("Not signed in", reason)
        }
        return html.handoff(errorMessage: reason, origin: openerOrigin)
    }

    static func query(callback: String?, origin: String?) -> String {
        var parts: [String] = []
        if let c = callback { parts.append("callback=" + (c.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        if let o = origin { parts.append("origin=" + (o.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    func form(_ page: PageContext, message: String?, notice: String? = nil, email: String = "",
              status: HTTPStatus = .ok) -> HTTPResponse {
        let mode = page.mode
        let heading = switch mode {
        case .signin: "Sign in"
        case .signup: "Create an account"
        case .account: "Account settings"
        }
        let links: [AuthPages.Link] = switch mode {
        case .signin where page.link != nil: []
        case .signin: (page.signUpOffered ? [AuthPages.Link(href: page.path(.signup), label: "Create an account",
                                                              first: true)] : [])
            + [AuthPages.Link(href: page.path(.account), label: "Account settings", first: !page.signUpOffered)]
        case .signup, .account: [AuthPages.Link(href: page.path(.signin), label: "Sign in", first: true)]
        }
        // Opened by an app's sign-in button (CloudKit JS's popup): a way to give up that the app hears.
        let cancel = page.callback != nil || page.openerOrigin != nil
            ? page.path(.signin) + (page.path(.signin).contains("?") ? "&" : "?") + "cancel=1" : nil
        return html.form(AuthPages.Form(title: heading, heading: heading, container: page.container.rawValue,
                                        environmentName: page.environment == .production ? "Production" : "Development", action: page.path(mode), email: email,
                                        button: mode == .account ? "Save" : heading, minimumLength: mode == .signup ? "8" : "1",
                                        passwordAutocomplete: mode == .signup ? "new-password" : "current-password", message: message, notice: notice, cancel: cancel,
                                        signup: mode == .signup, account: mode == .account, asksDiscoverable: mode != .signin, offersRemember: mode != .account,
                                        passwordForm: mode != .signup || page.passwordSignUp,
                                        testUser: page.environment == .development && mode == .signin
                                            && page.link == nil, links: links, link: page.link,
                                        providers: page.providers.map(page.providerLink),
                                        passkey: passkeyButton(page)), status: status)
    }

    /// After a sign-up, whether or not the address already had an account: the sign-in form, its email filled in.
    private func signedUp(_ page: PageContext, email: String) -> HTTPResponse {
        let signin = PageContext(container: page.container, environment: page.environment, callback: page.callback,
                                 openerOrigin: page.openerOrigin, mode: .signin)
        return form(signin, message: nil,
                    notice: "Now sign in with the email and password you chose. If this address already had an account here, sign in with that account's password.",
                    email: email)
    }

    /// The account page once its user proved who they are: how others can find them, and (with passkeys) a
    /// button that adds one to the account, its ceremony begun for this user and this browser.
    func accountSaved(_ page: PageContext, _ user: ContainerUser, _ req: HTTPRequest) async -> HTTPResponse {
        let since = user.discoverabilityChangedAt.map { " (since \(Self.utc($0)))" } ?? ""
        let state = user.discoverable
            ? "People who know your email address can find you and see your name\(since)."
            : "Nobody can find you by your email address or see your name\(since)."
        let add = await passkeyAddition(page, user, req)
        var r = html.saved(state: state, accountPath: page.path(.account), signInPath: page.path(.signin),
                           addPasskey: add?.button)
        if let cookie = add?.cookie { r.headers["set-cookie"] = cookie }
        return r
    }

    static func utc(_ millis: Int64) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(millis) / 1000))
    }
}
