import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore
import StratusTemplates
import Synchronization
import Logging

/// The web console: server-rendered pages behind an admin session. Templates are parsed once, at start-up.
public final class Console: Sendable {
    let logger = Logger(label: "stratus")
    let store: ServerStore
    /// The server's templates (the console's, and the API's sign-in and share pages).
    public let library: TemplateLibrary
    let blocking: BlockingWork
    /// The one-time secret of the first-admin setup link (useless once an admin exists).
    public let setupToken: String
    let secureCookies: Bool
    /// Whether admins may browse users' private and shared databases in Production (`serve
    /// --allow-production-user-data`).
    let allowProductionUserData: Bool
    /// `serve --require-two-factor`: an administrator without a second factor reaches only its enrolment.
    let requireTwoFactor: Bool
    /// Who administrators' passkeys are for (the host of `--public-url`); nil: the console offers none.
    let relyingParty: PasskeyCeremony.RelyingParty?
    /// `serve --allow-production-admin`: faults (and snapshots) of Production.
    let allowProductionAdmin: Bool
    /// Shared with the CloudKit sign-in pages, so one address's failures count once across both.
    let throttle: SignInThrottle
    /// The CloudKit API's request log (the Logs page), when the server keeps one.
    let requestLog: RequestLog?
    /// The server's time series (the Telemetry page), when it keeps one.
    let telemetry: Telemetry?
    /// The demo container (`serve --demo`): its telemetry and logs from before it was created are generated, and
    /// the Telemetry and Logs pages say so.
    let demo: ContainerID?
    /// Console imports under way and recently finished.
    let importJobs = ImportJobs()
    /// Page headers (environment, tabs, database switch) are the same for every page of a scope and tab:
    /// built and converted for the template once, not on every request.
    private let headers = Mutex<[String: TemplateValue]>([:])
    /// The sidebar's container picker, converted for the template, per container and environment: kept for a second
    /// (containers come and go rarely, possibly on another node), dropped at once when this console adds or deletes
    /// one.
    private let pickers = Mutex<(at: ContinuousClock.Instant, ids: [ContainerID],
                                 encoded: [String: TemplateValue])>((.now - .seconds(60), [], [:]))

    public init(store: ServerStore, templatesDirectory: URL, blocking: BlockingWork = .shared,
                secureCookies: Bool = false,
                allowProductionUserData: Bool = false, allowProductionAdmin: Bool = false,
                requireTwoFactor: Bool = false, publicURL: String? = nil, throttle: SignInThrottle = SignInThrottle(),
                requestLog: RequestLog? = nil, telemetry: Telemetry? = nil,
                demo: ContainerID? = nil) throws {
        self.store = store
        self.demo = demo
        self.requestLog = requestLog
        self.telemetry = telemetry
        self.throttle = throttle
        self.allowProductionUserData = allowProductionUserData
        self.allowProductionAdmin = allowProductionAdmin
        self.requireTwoFactor = requireTwoFactor
        relyingParty = PasskeyCeremony.RelyingParty(publicURL: publicURL)
        self.blocking = blocking
        self.secureCookies = secureCookies
        setupToken = Secrets.hex(Secrets.randomBytes(16))
        let library = try TemplateLibrary(directory: templatesDirectory)
        guard library.has("containers") else {
            throw StratusError(.internalError, "console templates not found in \(templatesDirectory.path)")
        }
        self.library = library
    }

    /// Where to create the first admin, while there is none.
    public var setupPath: String? {
        ((try? store.admins.hasAdmins()) == false) ? ConsolePaths.setup(token: setupToken) : nil
    }

    /// The console's URL map (stable: tests and bookmarks rely on it), one page group after another. Fixed words
    /// come before the `{environment}` captures, so `/console/C/deploy` is the deploy page, not an environment.
    public func register(_ router: inout Router) {
        let c = self
        LoginPages.register(&router, console: c)
        ContainerPages.register(&router, console: c)
        AdministratorPages.register(&router, console: c)
        TwoFactorPages.register(&router, console: c)
        MonitorPages.add(to: &router, console: c)
        AccessPages.add(to: &router, console: c)
        SchemaPages.add(to: &router, console: c)
        SettingsPages.add(to: &router, console: c)
        DataPages.add(to: &router, console: c)
        // The rest of the console's URL space: signed-in visitors get a page saying it is not there (yet).
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/console/*", bodyLimit: 16 * 1024) { req in
                try await c.authenticated(req, need: .personal) { s in
                    c.errorPage(s, status: .notFound, heading: "Not found",
                                reason: "There is no console page at this address.")
                }
            }
        }
    }

    // MARK: sessions

    struct Session: Sendable {
        var admin: Admin
        var csrf: String
        /// The session cookie's token, for the statements that change the session (acting as a user).
        var token = ""
        /// Whom this session acts as, in which container environment (see `ConsoleScope.actingAs`).
        var acting: ActingAs?
        /// What the administrator may do, per container.
        var roles = AdminRoles()
        /// Signed in with a password, still waiting for the second factor: only its page is reached.
        var secondStepPending = false
    }

    static let cookieName = "stratus_session"
    /// The device cookie a browser gets when it signs in (see `ServerStore.issueDeviceCookie`).
    static let deviceCookieName = "stratus_device"

    /// `Secure` whenever the browser reached the console over https (directly, or through a trusted proxy or the
    /// public URL), so the session never travels in clear text.
    func sessionCookie(_ value: String, maxAge: Int, _ req: HTTPRequest) -> String {
        "\(Console.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)" + (secureCookies || req.scheme == "https" ? "; Secure" : "")
    }

    /// Before a console form's body is read (imports take up to 64 MB): the visitor has a live session. Without
    /// one the answer is the sign-in redirect, and the body is never read. (The CSRF token travels in the body and
    /// is checked with it.)
    @Sendable func admitSession(_ req: HTTPRequest) async -> BodyAdmission {
        let token = req.cookie(Console.cookieName)
        let store = self.store
        let admin = (try? await blocking.run { try token.flatMap { try store.admins.adminSession($0) } }) ?? nil
        guard let admin else { return .refused(.redirect(to: ConsolePaths.login)) }
        return .admitted(credential: "console admin \(admin.admin.id)")
    }

    /// Runs a page with the visitor's session, or sends them to sign in. A form post must carry the session's
    /// CSRF token and come from this site (Origin check).
    func authenticated(_ req: HTTPRequest, form: Bool = false, need: ConsoleNeed = .read,
                       _ page: @escaping @Sendable (Session) throws -> HTTPResponse) async throws -> HTTPResponse {
        try await authenticated(req, form: form, scoped: false, need: need) { s, _ in try page(s) }
    }

    /// A page inside a container: the container and environment (and database, when the route has one) come
    /// from the URL; an unknown one is a 404 page.
    func scoped(_ req: HTTPRequest, need: ConsoleNeed,
                _ page: @escaping @Sendable (Session, ConsoleScope) throws -> HTTPResponse) async throws
        -> HTTPResponse {
        try await authenticated(req, form: req.method == .post, scoped: true, need: need) { s, scope in
            try page(s, scope!)
        }
    }

    /// The session, CSRF and scope checks every signed-in page passes, then the page. What a page throws goes to the
    /// console group's one error owner (`errors`) with the session and scope it happened in (`PageFailure`), so the
    /// error page keeps the console's header; a failure before there is a session goes there bare.
    private func authenticated(_ req: HTTPRequest, form: Bool, scoped: Bool, need: ConsoleNeed,
                               _ page: @escaping @Sendable (Session,
                                                            ConsoleScope?) throws -> HTTPResponse) async throws -> HTTPResponse {
        let token = req.cookie(Console.cookieName)
        // One `BlockingWork.run` per request (in place on a connection's own thread): the session, the scope and the
        // page together.
        return try await blocking.run {
            guard let token, let found = try self.store.admins.adminSession(token) else {
                if (try? self.store.admins.hasAdmins()) == false { return self.errorPage(nil, status: .forbidden,
                        heading: "No administrator yet",
                        reason: "Use the setup link that `stratus serve` printed, or run `stratus admin create`.") }
                return .redirect(to: ConsolePaths.login)
            }
            let session = Session(admin: found.admin, csrf: found.csrf, token: token, acting: found.acting,
                                  roles: found.roles,
                                  secondStepPending: found.secondStepPending)
            if let detour = try self.twoFactorDetour(session, need) { return detour }
            if req.method == .post {
                guard self.sameOrigin(req), self.formValue(req, "csrf") == session.csrf else {
                    return self.errorPage(session, status: .forbidden, heading: "Refused",
                                          reason: "This form was not sent from this console's own page (missing or stale security token). Reload the page and try again.")
                }
            }
            let scope = try PageFailure.within(req, session, nil) { scoped ? try self.scope(req, session) : nil }
            guard need.allowed(session.roles, in: scope) else { return self.refusedByRole(session, need, scope) }
            return try PageFailure.within(req, session, scope) { try page(session, scope) }
        }
    }

    func scope(_ req: HTTPRequest, _ session: Session) throws -> ConsoleScope {
        let p = req.parameters
        guard let c = p["container"], let container = try? ContainerID(c) else { throw StratusError(.notFound,
                "There is no container by that name.") }
        let environment = try ContainerEnvironment(rawValue: p["environment"] ?? "") ?? { () throws(StratusError) -> ContainerEnvironment in
            throw StratusError(.notFound, "Environments are development and production.")
        }()
        let env = try store.environment(container, environment)
        var scope = ConsoleScope(container: container, environment: environment, env: env)
        scope.userDataBrowsable = (environment != .production || allowProductionUserData)
            && session.roles.allows(.readUserData(environment), in: container)
        // The session's "Act as" choice, when it was made in this container environment. A user since deleted is
        // refused (and forgotten), never silently replaced by nobody.
        if let acting = session.acting, acting.container == container.rawValue, acting.environment == environment.rawValue {
            guard let user = try store.accounts.user(container: container, userRecordName: acting.userRecordName) else {
                try store.admins.setActingAs(nil, session: session.token)
                throw StratusError(.notFound,
                                   "The user this console was acting as is no longer in this container. Choose another with Act as.")
            }
            scope.actingAs = user
        }
        if let d = p["database"] {
            guard let database = DatabaseScope(rawValue: d) else { throw StratusError(.notFound,
                    "Databases are public, private and shared.") }
            scope.database = database
            // A link to one user's data names them (`as=`); otherwise the page reads as the user acted as.
            if database != .public, let user = req.query("as").flatMap({ $0.isEmpty ? nil : $0 }) ?? scope.actingAs?.userRecordName {
                guard try store.accounts.user(container: container, userRecordName: user) != nil else {
                    throw StratusError(.notFound, "This container has no user \(user.prefix(40)).")
                }
                try auditUserDataRead(ConsoleRequest(request: req, session: session, scope: scope),
                                      "\(database.rawValue) database of \(user)")
                scope.user = user
            }
        }
        return scope
    }

    /// Reading a user's data in Production: refused unless the server allows it, and then every read is audited.
    func auditUserDataRead(_ r: ConsoleRequest, _ what: String) throws {
        let (req, session, scope) = (r.request, r.session, r.scope)
        guard scope.environment == .production else { return }
        guard allowProductionUserData else {
            throw StratusError(.accessDenied,
                               "Browsing users' data in Production needs the server to be started with --allow-production-user-data.")
        }
        guard session.roles.allows(.readUserData(.production), in: scope.container) else {
            throw StratusError(.accessDenied,
                               "Browsing users' data in Production needs the admin role in this container.")
        }
        if req.method == .get {
            try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: session.admin.email,
                                              action: "view user data", container: scope.container.rawValue,
                                       environment: scope.environment.rawValue, detail: "\(what): \(req.rawPath)"))
        }
    }

    func audit(_ s: Session, _ scope: ConsoleScope?, _ action: String, _ detail: String,
               container: ContainerID? = nil) throws {
        try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: s.admin.email, action: action,
                                          container: (scope?.container ?? container)?.rawValue,
                                   environment: scope?.environment.rawValue, detail: detail))
    }

    /// A page's error in the console's look (inside its container when it has one), with a way back to the
    /// form it came from; never a stack trace. Only the group's owner (`errors`) calls it.
    private func failure(_ req: HTTPRequest, _ session: Session, _ scope: ConsoleScope?,
                         _ error: any Error) -> HTTPResponse {
        let (e, heading, status) = Self.explain(error, path: req.rawPath)
        if Console.wantsJSON(req) { return Console.jsonAnswer(["serverErrorCode": e.code.rawValue, "reason": e.reason],
                                                              status: status) }
        var view = ErrorView(title: heading, heading: heading, reason: e.reason)
        view.back = formPage(req)
        guard let scope else { return render("error", view, session: session, status: status) }
        return page(ConsoleRequest(request: req, session: session, scope: scope), tab: .none, "error", title: heading,
                    view, status: status)
    }

    /// In the demo container, when its generated telemetry and logs end (its creation), and the note that says so.
    func demoData(_ scope: ConsoleScope) -> (before: Int64, note: String)? {
        guard scope.container == demo, let created = (try? store.containers())?.first(where: { $0.id == scope.container })?.createdAt else { return nil }
        return (created,
                "Demo data: the requests before \(ValueDisplay.utcString(created)) were generated by stratus serve --demo so that this page has something to show; later ones are real.")
    }

    /// The console page a form was sent from (same site only: the Referer is sent only to this origin), to go back to.
    /// The console page a form was sent from (its `Referer`), to go back to: a path of this console as the console
    /// writes paths (still percent-encoded, never decoded into a header), or nil. A crafted link's Referer cannot make
    /// the redirect carry a header of its own or leave the console.
    func formPage(_ req: HTTPRequest) -> String? {
        guard let referer = req.headers["referer"], let u = URLComponents(string: referer), u.host != nil,
              req.headers["host"].map({ u.host == $0.split(separator: ":").first.map(String.init) }) == true else { return nil }
        let target = u.percentEncodedPath + (u.percentEncodedQuery.map { "?" + $0 } ?? "")
        return ConsolePaths.isConsoleTarget(target) ? target : nil
    }

    /// What the console says of an error: the reason an administrator may read (an internal error's detail goes to
    /// the log under a uuid the page quotes; ErrorEnvelope redacts for every face of the server), a heading, a status.
    static func explain(_ error: any Error, path: String) -> (error: StratusError, heading: String,
                                                              status: HTTPStatus) {
        if let h = error as? HTTPError {
            return (StratusError(.badRequest, h.message), h.status.code == 404 ? "Not found" : "Not done", h.status)
        }
        var e = error as? StratusError ?? StratusError(.internalError, "\(error)")
        e.reason = ErrorEnvelope.publicReason(e, uuid: UUID().uuidString.lowercased(), path: path)
        let heading = switch e.code {
        case .internalError: "Something went wrong"
        case .notFound, .zoneNotFound: "Not found"
        case .accessDenied: "Not allowed"
        case .conflict, .exists: "Conflict"
        default: "Not done"
        }
        return (e, heading, .code(e.code.httpStatus))
    }

    /// The console group's error owner (see `RouteGroup`): what escapes a page, or what the HTTP layer refuses under
    /// `/console` (a form over its size, a timeout), as the console's error page, without the signed-in header.
    public var errors: RouteGroup.Errors {
        let c = self
        return { error, path in
            if let f = error as? PageFailure { return c.failure(f.request, f.session, f.scope, f.error) }
            let (e, heading, status) = Console.explain(error, path: path)
            return c.errorPage(nil, status: status, heading: heading, reason: e.reason)
        }
    }

    func sameOrigin(_ req: HTTPRequest) -> Bool { SameOrigin.allows(req) }

    /// A form's text fields, url-encoded or multipart (a form with a file input).
    func form(_ req: HTTPRequest) -> [String: String] {
        let items = MultipartForm(req.body, contentType: req.headers["content-type"])?.fields
            ?? HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self))
        return Dictionary(items.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    func formValue(_ req: HTTPRequest, _ name: String) -> String? { form(req)[name] }

    // MARK: rendering

    /// The console's paths outside any container, as every template may need them (header, error page, sign-in).
    static let globalPaths: [String: String] = ["home": ConsolePaths.home, "audit": ConsolePaths.audit,
                                                "logout": ConsolePaths.logout,
                                                "login": ConsolePaths.login, "setup": ConsolePaths.setupForm, "theme": ConsolePaths.theme]
    /// `globalPaths` as templates see them, made once.
    static let globalPathsValue = TemplateValue.object(TemplateObject(globalPaths))

    /// The header's colour scheme buttons, converted once per choice an admin can have made.
    static let themeChoices: [ConsoleTheme: TemplateValue] = Dictionary(uniqueKeysWithValues: ConsoleTheme.allCases.map { chosen in
        (chosen, TemplateEncoder.encode(ConsoleTheme.allCases.map { ThemeChoice(value: $0.rawValue,
                label: $0.rawValue.capitalized, current: $0 == chosen) }))
    })

    /// Draws a page outside any container from its view (see `TemplateEncoder`), with what every page has: the
    /// signed-in administrator and the form token, breadcrumbs, the console's global paths.
    func render(_ template: String, _ view: some Encodable, session: Session?,
                status: HTTPStatus = .ok) -> HTTPResponse {
        guard case .object(var o) = TemplateEncoder.encode(view) else { return HTML.page("",
                status: .internalServerError) }
        // What the frame adds, set in one copy of the view's names.
        var frame: [(String, TemplateValue)] = []
        frame.reserveCapacity(6)
        if let session {
            var admin: ContiguousArray<TemplateObject.Entry> = [.init("email", .string(session.admin.email)),
                                                                .init("csrf", .string(session.csrf))]
            if session.roles.allows(.manageAdministrators, in: nil) {
                admin.append(.init("administrators", .string(ConsolePaths.administrators)))
            }
            frame.append(("admin", .object(TemplateObject(entries: admin))))
            if session.admin.theme != .system { frame.append(("theme", .string(session.admin.theme.rawValue))) }
            frame.append(("themes", Console.themeChoices[session.admin.theme] ?? .list([])))
            frame.append(("csrf", .string(session.csrf)))
        }
        if case .list(let crumbs)? = o["crumbs"] { frame.append(("hasCrumbs", .bool(!crumbs.isEmpty))) }
        frame.append(("consolePaths", Console.globalPathsValue))
        o = o.setting(frame)
        guard let html = library.renderBytes(template, .object(o)) else {
            return HTML.page("<!doctype html><title>Stratus</title><p>This page could not be drawn.</p>",
                             status: status)
        }
        return HTML.page(bytes: Data(html), status: status)
    }

    /// A page's own view with what `page` adds to it, drawn as one object: the frame's keys beside the view's.
    struct Framed<View: Encodable>: Encodable {
        let view: View
        let frame: Frame

        func encode(to encoder: any Encoder) throws {
            try view.encode(to: encoder)
            try frame.encode(to: encoder)
        }
    }

    /// What `page` adds to a page's own view: the title, the scope's header, the breadcrumbs and the user browsed.
    struct Frame: Encodable {
        let title: String
        let scope: TemplateValue
        let crumbs: [Crumb]
        let user: String?
        let acting: ActingBanner?
        /// The container picker's choices (`containerPicker`).
        let containers: TemplateValue
    }

    /// A page in a container: the scope's header and tabs, breadcrumbs, and the JSON variant (`json`, encoded with
    /// sorted keys) when asked for.
    func page(_ r: ConsoleRequest, tab: ConsoleTab, _ template: String, title: String,
              _ view: some Encodable, crumbs: [Crumb] = [], json: (any Encodable)? = nil, status: HTTPStatus = .ok) -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        if let json, Console.wantsJSON(req) { return Console.jsonAnswer(json, status: status) }
        let frame = Frame(title: title, scope: scopeHeader(scope, tab: tab), crumbs: scope.crumbs + crumbs,
                          user: scope.user,
                          acting: scope.actingAs.map { ActingBanner($0,
                                                                    paths: scope.paths) }, containers: containerPicker(scope))
        return render(template, Framed(view: view, frame: frame), session: s, status: status)
    }

    /// The container picker's links: every container, each to the same environment's overview (see `pickers`).
    func containerPicker(_ scope: ConsoleScope) -> TemplateValue {
        let key = "\(scope.container.rawValue)\u{0}\(scope.environment.rawValue)"
        let now = ContinuousClock.now
        if let hit = pickers.withLock({ p in now - p.at < .seconds(1) ? p.encoded[key] : nil }) { return hit }
        let fresh = pickers.withLock { p in now - p.at < .seconds(1) }
        let ids = fresh ? pickers.withLock { $0.ids } : ((try? store.containers()) ?? []).map(\.id)
        let value = TemplateEncoder.encode(ids.map { id in
            ConsoleHeader.Link(label: id.rawValue, href: ConsolePaths.environment(id, scope.environment),
                               current: id == scope.container)
        })
        pickers.withLock { p in
            if !fresh { p = (now, ids, [:]) }
            p.encoded[key] = value
        }
        return value
    }

    /// After this console adds or deletes a container, the picker shows it on the next page.
    func containersChanged() { pickers.withLock { $0.at = .now - .seconds(60) } }

    func scopeHeader(_ scope: ConsoleScope, tab: ConsoleTab) -> TemplateValue {
        let key = "\(scope.container.rawValue)\u{0}\(scope.environment.rawValue)\u{0}\(scope.database?.rawValue ?? "")\u{0}\(scope.user ?? "")\u{0}\(tab.rawValue)"
        if let cached = headers.withLock({ $0[key] }) { return cached }
        let value = TemplateEncoder.encode(scope.header(tab: tab))
        headers.withLock { h in
            if h.count > 2_000 { h.removeAll() }
            h[key] = value
        }
        return value
    }

    static func wantsJSON(_ req: HTTPRequest) -> Bool {
        (req.headers["accept"] ?? "").contains("application/json") || req.query("format") == "json"
    }

    /// The version of the console's JSON face (see docs/console.md), sent with every JSON answer.
    static let jsonVersion = "1"

    /// A page's JSON variant (what the page shows, for scripts and tests; the admin API is for automation), with the
    /// face's version in `Stratus-Console-JSON`.
    static func jsonAnswer(_ value: any Encodable, status: HTTPStatus = .ok) -> HTTPResponse {
        var r = HTTPResponse.json(json(value), status: status)
        r.headers["stratus-console-json"] = jsonVersion
        return r
    }

    /// A page's JSON variant: its keys sorted, slashes as they are.
    static func json(_ value: any Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)) ?? Data("{}".utf8)
    }

    /// Percent-encodes a value for a URL path segment or query value (everything but unreserved characters).
    /// On bytes: a page builds dozens of links, and Foundation's `addingPercentEncoding` was a visible share of it.
    static func queryEscape(_ s: String) -> String {
        let utf8 = s.utf8
        if utf8.allSatisfy(isUnreserved) { return s }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count * 3)
        for b in utf8 {
            if isUnreserved(b) { out.append(b) } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters: letters, digits and `-._~`.
    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    /// The error page (`error.mustache`): what went wrong and, after a form, the way back to it.
    struct ErrorView: Encodable {
        var title, heading, reason: String
        var back: String?
    }

    func errorPage(_ session: Session?, status: HTTPStatus, heading: String, reason: String) -> HTTPResponse {
        render("error", ErrorView(title: heading, heading: heading, reason: reason), session: session, status: status)
    }

    static func iso(_ millis: Int64) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(millis) / 1000))
    }
}
