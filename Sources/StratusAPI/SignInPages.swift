import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// Where `redirectURL` sends users: sign in with a container account (or create one; in Development also
/// continue as a test user), then hand `ckWebAuthToken` back the way CloudKit JS expects — by redirect to the
/// callback URL, or by `postMessage` to the window that opened the sign-in page.
final class SignInPages: Sendable {
    let store: RecordStore
    let blocking: BlockingWork
    /// Failed attempts per account and per address in the current window.
    private let failures = Mutex<[String: (count: Int, since: Int64)]>([:])
    static let maxFailures = 10
    static let window: Int64 = 5 * 60 * 1000

    init(store: RecordStore, blocking: BlockingWork) {
        self.store = store
        self.blocking = blocking
    }

    func register(_ router: inout Router) {
        let pages = self
        router.add(.get, "/auth/1/{container}/{environment}/signin") { req in await pages.handle(req, creating: false) }
        router.add(.post, "/auth/1/{container}/{environment}/signin", bodyLimit: 16 * 1024) { req in await pages.handle(req, creating: false) }
        router.add(.get, "/auth/1/{container}/{environment}/signup") { req in await pages.handle(req, creating: true) }
        router.add(.post, "/auth/1/{container}/{environment}/signup", bodyLimit: 16 * 1024) { req in await pages.handle(req, creating: true) }
    }

    func handle(_ req: HTTPRequest, creating: Bool) async -> HTTPResponse {
        guard let container = try? ContainerID(req.parameters["container"] ?? ""), let environment = Environment(rawValue: req.parameters["environment"] ?? ""),
              (try? store.containerExists(container)) == true else {
            return HTML.page(Self.layout("Not found", "<p>There is no such container.</p>"), status: .notFound)
        }
        // The token goes only where one of this environment's API tokens allows: a callback URL or the opener's origin.
        let callback = req.query("callback").flatMap(Self.safeCallback).flatMap { c in allowed(Self.origin(of: c), container, environment) ? c : nil }
        let openerOrigin = req.query("origin").flatMap { o in Self.origin(of: o) == o && allowed(o, container, environment) ? o : nil }
        if req.method == .get { return HTML.page(form(container, environment, callback: callback, openerOrigin: openerOrigin, creating: creating, message: nil)) }
        // A form posted from another site is refused: sign-in must happen on this page.
        if let origin = req.headers["origin"], origin != "http://\(req.headers["host"] ?? "")" {
            return HTML.page(Self.layout("Refused", "<p>This form can only be sent from its own page.</p>"), status: .forbidden)
        }
        let form = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        let email = (form["email"] ?? "").trimmingCharacters(in: .whitespaces)
        let keys = ["user:\(container.rawValue):\(email.lowercased())", "addr:\(req.remoteAddress.split(separator: ":").first ?? "")"]
        if keys.contains(where: throttled) {
            return HTML.page(self.form(container, environment, callback: callback, openerOrigin: openerOrigin, creating: creating,
                                       message: "Too many failed attempts. Wait a few minutes and try again."), status: .tooManyRequests)
        }
        let lifetime = form["remember"] == "on" ? RecordStore.longSession : RecordStore.shortSession
        let store = self.store
        do {
            let user: String = try await blocking.run {
                if form["testUser"] == "1" {
                    guard environment == .development else { throw StratusError(.accessDenied, "test users exist in Development only") }
                    let email = "test-user@\(container.rawValue)"
                    if let u = try store.user(container: container, email: email) { return u.userRecordName }
                    return try store.createUser(container: container, email: email, password: Secrets.randomPassword(), firstName: "Test", lastName: "User").userRecordName
                }
                if creating {
                    return try store.createUser(container: container, email: email, password: form["password"] ?? "",
                                                firstName: form["firstName"] ?? "", lastName: form["lastName"] ?? "").userRecordName
                }
                guard let u = try store.authenticateUser(container: container, email: email, password: form["password"] ?? "") else {
                    throw StratusError(.authenticationFailed, "That email and password do not match an account.")
                }
                return u.userRecordName
            }
            let token = try await blocking.run { try store.createWebAuthToken(container: container, userRecordName: user, lifetime: lifetime) }
            for k in keys { failures.withLock { $0[k] = nil } }
            return deliver(token, callback: callback, openerOrigin: openerOrigin)
        } catch {
            let e = error as? StratusError ?? StratusError(.internalError, "Something went wrong.")
            if e.code == .authenticationFailed { for k in keys { recordFailure(k) } }
            return HTML.page(self.form(container, environment, callback: callback, openerOrigin: openerOrigin, creating: creating, message: e.reason),
                             status: .code(e.code == .authenticationFailed ? 401 : e.code.httpStatus))
        }
    }

    private func throttled(_ key: String) -> Bool {
        failures.withLock { f in
            guard let entry = f[key] else { return false }
            if Clock.nowMillis() - entry.since > Self.window { f[key] = nil; return false }
            return entry.count >= Self.maxFailures
        }
    }

    private func recordFailure(_ key: String) {
        failures.withLock { f in
            let now = Clock.nowMillis()
            if let e = f[key], now - e.since <= Self.window { f[key] = (e.count + 1, e.since) } else { f[key] = (1, now) }
        }
    }

    /// Only http(s) callbacks, so a crafted link cannot turn the redirect into script.
    static func safeCallback(_ s: String) -> String? {
        guard s.utf8.count <= 2048, let u = URL(string: s), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else { return nil }
        return s
    }

    private func allowed(_ origin: String?, _ container: ContainerID, _ env: Environment) -> Bool {
        guard let origin, let tokens = try? store.apiTokens(container: container, environment: env) else { return false }
        return tokens.contains { !$0.revoked && $0.allows(origin: origin) }
    }

    /// `scheme://host[:port]` of a URL, or nil.
    static func origin(of s: String) -> String? {
        guard let u = URL(string: s), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = u.host else { return nil }
        return "\(scheme)://\(host)" + (u.port.map { ":\($0)" } ?? "")
    }

    private func deliver(_ token: String, callback: String?, openerOrigin: String?) -> HTTPResponse {
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        if let callback {
            let sep = callback.contains("?") ? "&" : "?"
            return .redirect(to: callback + sep + "ckWebAuthToken=" + encoded)
        }
        guard let openerOrigin else {
            return HTML.page(Self.layout("Signed in", "<p>You are signed in, but this page was not opened by an application this container trusts, so it keeps the session to itself.</p>"))
        }
        // postMessage to the opener's origin only, by a script file (no inline script under the CSP).
        return HTML.page(Self.layout("Signed in", """
            <p id="signed-in" data-ck-web-auth-token="\(HTML.escape(token))" data-origin="\(HTML.escape(openerOrigin))">You are signed in. You can close this window.</p>
            <script src="/-/static/signin.js"></script>
            """))
    }

    static func query(callback: String?, origin: String?) -> String {
        var parts: [String] = []
        if let c = callback { parts.append("callback=" + (c.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        if let o = origin { parts.append("origin=" + (o.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")) }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    private func form(_ container: ContainerID, _ env: Environment, callback: String?, openerOrigin: String?, creating: Bool, message: String?) -> String {
        let query = Self.query(callback: callback, origin: openerOrigin)
        let action = "/auth/1/\(container.rawValue)/\(env.rawValue)/\(creating ? "signup" : "signin")" + query
        let other = "/auth/1/\(container.rawValue)/\(env.rawValue)/\(creating ? "signin" : "signup")" + query
        var body = "<h1>\(creating ? "Create an account" : "Sign in") to \(HTML.escape(container.rawValue))</h1>"
        body += "<p class=\"env\">\(env == .production ? "Production" : "Development")</p>"
        if let message { body += "<p class=\"error\" role=\"alert\">\(HTML.escape(message))</p>" }
        body += "<form method=\"post\" action=\"\(HTML.escape(action))\">"
        if creating {
            body += "<label>First name <input name=\"firstName\" autocomplete=\"given-name\"></label><label>Last name <input name=\"lastName\" autocomplete=\"family-name\"></label>"
        }
        body += """
            <label>Email <input name="email" type="email" required autocomplete="email"></label>
            <label>Password <input name="password" type="password" required minlength="\(creating ? 8 : 1)" autocomplete="\(creating ? "new-password" : "current-password")"></label>
            <label><input name="remember" type="checkbox"> Keep me signed in for two weeks</label>
            <button type="submit">\(creating ? "Create account" : "Sign in")</button></form>
            <p><a href="\(HTML.escape(other))">\(creating ? "I have an account" : "Create an account")</a></p>
            """
        if env == .development {
            body += "<form method=\"post\" action=\"\(HTML.escape(action))\"><input type=\"hidden\" name=\"testUser\" value=\"1\"><button type=\"submit\">Continue as a test user</button></form>"
        }
        return Self.layout(creating ? "Create an account" : "Sign in", body)
    }

    static func layout(_ title: String, _ body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title)) · Stratus</title><link rel="stylesheet" href="/-/static/console.css"></head>
        <body><main class="signin">\(body)</main></body></html>
        """
    }
}
