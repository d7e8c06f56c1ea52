import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Sign-in, sign-out and the first-admin setup.
extension LoginPages {
    func loginPage(_ req: HTTPRequest) async -> HTTPResponse {
        let store = self.store
        if let t = req.cookie(Console.cookieName),
           (try? await blocking.run { try store.admins.adminSession(t) }) != nil { return .redirect(to: ConsolePaths.home) }
        return await page(req)
    }

    /// The sign-in form, with a passkey button (its ceremony begun for this browser) where the server has a public
    /// URL.
    func page(_ req: HTTPRequest, email: String = "", error: String? = nil,
              status: HTTPStatus = .ok) async -> HTTPResponse {
        let console = self.console
        let passkey = try? await blocking.run {
            TwoFactorPages.passkeyButton(console, .signIn, admin: nil, csrf: nil, req)
        }
        var r = render("login", LoginView(title: "Sign in", email: email, error: error, passkey: passkey?.button),
                       session: nil, status: status)
        if let cookie = passkey?.cookie { r.headers.add("set-cookie", cookie) }
        return r
    }

    struct LoginView: Encodable {
        let title, email: String
        let error: String?
        let passkey: TwoFactorPages.PasskeyButtonView?
    }

    /// `POST /console/login/passkey`: a passkey alone signs an administrator in (it verified its user: two factors
    /// in one), counted in the sign-in throttle by address when refused.
    func passkeyLogin(_ req: HTTPRequest) async -> HTTPResponse {
        guard console.sameOrigin(req) else { return errorPage(nil, status: .forbidden, heading: "Refused",
                                                              reason: "Sign in from this console's own page.") }
        let account = "admin-passkey:\(req.clientAddress)", address = req.clientAddress
        if case .wait(let seconds) = console.throttle.check(account: account, address: address) {
            return await page(req, error: "Too many failed attempts. Wait \(seconds) seconds and try again.",
                              status: .tooManyRequests)
        }
        let console = self.console, fields = form(req)
        do {
            let made = try await blocking.run { () throws -> (String, String) in
                let (_, clientData) = try TwoFactorPages.ceremony(console, fields, req, [.signIn])
                let admin = try TwoFactorPages.verify(console, fields, clientData: clientData)
                let s = try console.store.admins.createAdminSession(admin)
                return (s.token, s.csrf)
            }
            console.throttle.succeeded(account: account)
            var r = HTTPResponse.redirect(to: ConsolePaths.home)
            let maxAge = Int(AdminStore.sessionAbsolute / 1000)
            r.headers.add("set-cookie", console.sessionCookie(made.0, maxAge: maxAge, req))
            return r
        } catch {
            console.throttle.failed(account: account, address: address)
            let reason = (error as? StratusError)?.reason ?? "the passkey could not be checked"
            return await page(req, error: "Signing in with a passkey did not work: \(reason).", status: .unauthorized)
        }
    }

    func login(_ req: HTTPRequest) async -> HTTPResponse {
        guard console.sameOrigin(req) else { return errorPage(nil, status: .forbidden, heading: "Refused",
                                                              reason: "Sign in from this console's own page.") }
        let f = form(req)
        let email = (f["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let account = "admin:\(email.lowercased())", address = req.clientAddress
        let store = self.store
        let password = f["password"] ?? ""
        // A device cookie of this account: this browser signed in to it before, and strangers' failures do not hold it
        // back.
        let presented = req.cookie(Console.deviceCookieName)
        let device = try? await blocking.run { () throws -> String? in
            guard let presented, try store.admins.isDeviceCookie(presented, of: account) else { return nil }
            return presented
        }
        let result: (token: String, csrf: String)
        switch await console.throttle.attempt(account: account, address: address, device: device ?? nil,
                                              { () throws -> (token: String, csrf: String) in
            guard let admin = try store.admins.authenticateAdmin(email: email,
                                                                 password: password) else { throw StratusError(.authenticationFailed, "no match") }
            // With a second factor, the session reaches only the second step until it passes.
            let secondStep = try store.admins.twoFactor.hasSecondFactor(admin)
            return try store.admins.createAdminSession(admin, secondStep: secondStep)
        }) {
        case .succeeded(let made): result = made
        case .wait(let seconds):
            var r = await page(req, email: email, error: "Too many failed attempts. Wait \(seconds) second"
                               + "\(seconds == 1 ? "" : "s") and try again.", status: .tooManyRequests)
            r.headers["retry-after"] = String(seconds)
            return r
        case .busy:
            var r = await page(req, email: email,
                               error: "The server is busy signing people in. Try again in a few seconds.",
                               status: .serviceUnavailable)
            r.headers["retry-after"] = "5"
            return r
        case .refused:
            return await page(req, email: email, error: "That email and password do not match an administrator.",
                              status: .unauthorized)
        }
        var r = HTTPResponse.redirect(to: ConsolePaths.home)
        r.headers.add("set-cookie", console.sessionCookie(result.token, maxAge: Int(AdminStore.sessionAbsolute / 1000),
                                                          req))
        if (device ?? nil) == nil, let issued = try? await blocking.run({ try store.admins.issueDeviceCookie(account: account) }) {
            r.headers.add("set-cookie",
                          "\(Console.deviceCookieName)=\(issued); Path=/console; HttpOnly; SameSite=Strict; Max-Age=\(AdminStore.deviceCookieLifetime / 1000)"
                          + (console.secureCookies || req.scheme == "https" ? "; Secure" : ""))
        }
        return r
    }

    func logout(_ req: HTTPRequest) async -> HTTPResponse {
        let store = self.store
        guard let token = req.cookie(Console.cookieName),
              let s = try? await blocking.run({ try store.admins.adminSession(token) }) else {
            return .redirect(to: ConsolePaths.login)
        }
        guard console.sameOrigin(req), formValue(req, "csrf") == s.csrf else {
            return errorPage(Session(admin: s.admin, csrf: s.csrf), status: .forbidden, heading: "Refused",
                             reason: "This form was not sent from this console's own page.")
        }
        _ = try? await blocking.run { try store.admins.endAdminSession(token) }
        var r = HTTPResponse.redirect(to: ConsolePaths.login)
        r.headers["set-cookie"] = console.sessionCookie("", maxAge: 0, req)
        return r
    }

    func setupPage(_ req: HTTPRequest) async -> HTTPResponse {
        let store = self.store
        guard (try? await blocking.run { try store.admins.hasAdmins() }) == false, req.query("token") == console.setupToken else {
            return errorPage(nil, status: .notFound, heading: "Not found",
                             reason: "This setup link is not valid (an administrator may already exist).")
        }
        return render("setup", ["title": "Set up Stratus", "token": console.setupToken], session: nil)
    }

    func setup(_ req: HTTPRequest) async -> HTTPResponse {
        let f = form(req)
        guard console.sameOrigin(req), f["token"] == console.setupToken else {
            return errorPage(nil, status: .notFound, heading: "Not found", reason: "This setup link is not valid.")
        }
        let store = self.store
        do {
            let session = try await blocking.run { () throws -> (String, String) in
                // Only while there is no admin: the first one to finish wins, a second post is refused.
                guard try !store.admins.hasAdmins() else { throw StratusError(.exists,
                        "An administrator already exists: sign in instead.") }
                let admin = try store.admins.createAdmin(email: f["email"] ?? "", password: f["password"] ?? "")
                try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: admin.email,
                                                  action: "create first administrator", container: nil,
                        environment: nil, detail: admin.email))
                let s = try store.admins.createAdminSession(admin)
                return (s.token, s.csrf)
            }
            var r = HTTPResponse.redirect(to: ConsolePaths.home)
            r.headers["set-cookie"] = console.sessionCookie(session.0, maxAge: Int(AdminStore.sessionAbsolute / 1000),
                                                            req)
            return r
        } catch {
            let (e, _, status) = Console.explain(error, path: req.rawPath)
            var page = render("setup", ["title": "Set up Stratus", "token": console.setupToken, "error": e.reason],
                              session: nil, status: status)
            page.headers["cache-control"] = "no-store"
            return page
        }
    }

    /// The colour scheme switch in every page's header: kept for the admin (every device), then back to the page.
    func setTheme(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        guard let theme = ConsoleTheme(rawValue: formValue(req, "theme") ?? "") else {
            throw StratusError(.badRequest, "Colour schemes are system, light and dark.")
        }
        try store.admins.setTheme(theme, admin: s.admin)
        return .redirect(to: console.formPage(req) ?? ConsolePaths.home)
    }
}
