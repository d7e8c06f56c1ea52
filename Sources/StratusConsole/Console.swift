import Foundation
import Mustache
import StratusHTTP
import StratusModel
import StratusStore
import Synchronization

/// The web console: server-rendered pages behind an admin session. Templates are parsed once, at start-up.
public final class Console: Sendable {
    let store: RecordStore
    let library: MustacheLibrary
    let blocking: BlockingWork
    /// The one-time secret of the first-admin setup link (useless once an admin exists).
    public let setupToken: String
    let secureCookies: Bool
    private let failures = Mutex<[String: (count: Int, since: Int64)]>([:])

    public init(store: RecordStore, templatesDirectory: URL, blocking: BlockingWork = .shared, secureCookies: Bool = false) throws {
        self.store = store
        self.blocking = blocking
        self.secureCookies = secureCookies
        setupToken = Secrets.hex(Secrets.randomBytes(16))
        var library = MustacheLibrary()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: templatesDirectory.path)) ?? []
        for file in files where file.hasSuffix(".mustache") {
            let text = try String(contentsOf: templatesDirectory.appendingPathComponent(file), encoding: .utf8)
            try library.register(text, named: String(file.dropLast(".mustache".count)))
        }
        guard library.getTemplate(named: "containers") != nil else {
            throw StratusError(.internalError, "console templates not found in \(templatesDirectory.path)")
        }
        self.library = library
    }

    /// Where to create the first admin, while there is none.
    public var setupPath: String? {
        ((try? store.hasAdmins()) == false) ? "/console/setup?token=\(setupToken)" : nil
    }

    public func register(_ router: inout Router) {
        let c = self
        router.add(.get, "/console/login") { req in await c.loginPage(req) }
        router.add(.post, "/console/login", bodyLimit: 16 * 1024) { req in await c.login(req) }
        router.add(.post, "/console/logout", bodyLimit: 16 * 1024) { req in await c.logout(req) }
        router.add(.get, "/console/setup") { req in await c.setupPage(req) }
        router.add(.post, "/console/setup", bodyLimit: 16 * 1024) { req in await c.setup(req) }
        router.add(.get, "/console/") { req in await c.authenticated(req) { s in try c.containersPage(req, s) } }
        router.add(.post, "/console/containers", bodyLimit: 16 * 1024) { req in await c.authenticated(req, form: true) { s in try c.createContainer(req, s) } }
        router.add(.get, "/console/audit") { req in await c.authenticated(req) { s in try c.auditPage(req, s) } }
        // The rest of the console's URL space: signed-in visitors get a page saying it is not there (yet).
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/console/*", bodyLimit: 16 * 1024) { req in
                await c.authenticated(req) { s in c.errorPage(s, status: .notFound, heading: "Not found", reason: "There is no console page at this address.") }
            }
        }
    }

    // MARK: sessions

    struct Session: Sendable {
        var admin: Admin
        var csrf: String
    }

    static let cookieName = "stratus_session"

    func cookie(_ req: HTTPRequest, _ name: String) -> String? {
        for header in req.headers.values("cookie") {
            for part in header.split(separator: ";") {
                let kv = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if kv.count == 2 && kv[0] == name { return kv[1] }
            }
        }
        return nil
    }

    func sessionCookie(_ value: String, maxAge: Int) -> String {
        "\(Console.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)" + (secureCookies ? "; Secure" : "")
    }

    /// Runs a page with the visitor's session, or sends them to sign in. A form post must carry the session's
    /// CSRF token and come from this site (Origin check).
    func authenticated(_ req: HTTPRequest, form: Bool = false, _ page: @escaping @Sendable (Session) throws -> HTTPResponse) async -> HTTPResponse {
        let store = self.store
        let token = cookie(req, Console.cookieName)
        let session: Session? = try? await blocking.run {
            guard let token, let s = try store.adminSession(token) else { return nil }
            return Session(admin: s.admin, csrf: s.csrf)
        }
        guard let session else {
            if (try? store.hasAdmins()) == false { return errorPage(nil, status: .forbidden, heading: "No administrator yet", reason: "Use the setup link that `stratus serve` printed, or run `stratus admin create`.") }
            return .redirect(to: "/console/login")
        }
        if req.method == .post {
            guard sameOrigin(req), formValue(req, "csrf") == session.csrf else {
                return errorPage(session, status: .forbidden, heading: "Refused", reason: "This form was not sent from this console's own page (missing or stale security token). Reload the page and try again.")
            }
        }
        do { return try await blocking.run { try page(session) } } catch {
            let e = error as? StratusError ?? StratusError(.internalError, "Something went wrong.")
            return errorPage(session, status: .code(e.code.httpStatus), heading: e.code == .internalError ? "Something went wrong" : "Not done", reason: e.reason)
        }
    }

    func sameOrigin(_ req: HTTPRequest) -> Bool {
        guard let origin = req.headers["origin"] else { return true }
        return origin == "http://\(req.headers["host"] ?? "")" || origin == "https://\(req.headers["host"] ?? "")"
    }

    func form(_ req: HTTPRequest) -> [String: String] {
        Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    func formValue(_ req: HTTPRequest, _ name: String) -> String? { form(req)[name] }

    // MARK: rendering

    func render(_ template: String, _ values: [String: Any], session: Session?, status: HTTPStatus = .ok) -> HTTPResponse {
        var v = values
        if let session {
            v["admin"] = ["email": session.admin.email, "csrf": session.csrf]
            v["csrf"] = session.csrf
        }
        v["hasCrumbs"] = (v["crumbs"] as? [Any])?.isEmpty == false
        let html = library.render(v, withTemplate: template) ?? "<!doctype html><title>Stratus</title><p>This page could not be drawn.</p>"
        return HTML.page(html, status: status)
    }

    func errorPage(_ session: Session?, status: HTTPStatus, heading: String, reason: String) -> HTTPResponse {
        render("error", ["title": heading, "heading": heading, "reason": reason], session: session, status: status)
    }

    static func iso(_ millis: Int64) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(millis) / 1000))
    }

    // MARK: throttling

    static let maxFailures = 10
    public static var maxFailuresForTests: Int { maxFailures }
    static let failureWindow: Int64 = 5 * 60 * 1000

    func throttled(_ keys: [String]) -> Bool {
        let now = Clock.nowMillis()
        return failures.withLock { f in keys.contains { k in
            guard let e = f[k] else { return false }
            if now - e.since > Console.failureWindow { f[k] = nil; return false }
            return e.count >= Console.maxFailures
        } }
    }

    func recordFailure(_ keys: [String]) {
        let now = Clock.nowMillis()
        failures.withLock { f in
            for k in keys { if let e = f[k], now - e.since <= Console.failureWindow { f[k] = (e.count + 1, e.since) } else { f[k] = (1, now) } }
        }
    }

    func clearFailures(_ keys: [String]) { failures.withLock { f in for k in keys { f[k] = nil } } }
}
