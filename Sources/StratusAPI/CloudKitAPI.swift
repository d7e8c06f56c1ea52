import Foundation
import StratusHTTP
import StratusModel
import StratusStore
import StratusTemplates

/// CloudKit Web Services: `/database/1/{container}/{environment}/{database}/{entity}/{action}`.
/// Bodies are JSON whatever their Content-Type (CloudKit JS sends text/plain); every answer is JSON,
/// errors in CloudKit's envelope with Apple's statuses.
public struct CloudKitAPI: Sendable {
    let store: ServerStore
    let blocking: BlockingWork
    /// The largest request body; over it, 413 before it is read.
    let bodyLimit: Int
    let serverToServer = ServerToServerAuth()
    /// Shared with the console's sign-in, so one address's failures count once across both.
    let throttle: SignInThrottle
    let limits: APILimits
    /// How long a web courier poll waits for a notification before answering empty (CloudKit JS polls again).
    let courierHold: Duration
    /// SSE streams and courier polls open now, within their caps.
    let listeners: NotificationListeners
    /// The sign-in and share pages' HTML (`Templates/auth-*`, `share-*`).
    let html: AuthPages
    /// The OpenID providers' published keys, for the token exchange.
    let identityKeys = IdentityKeySets()
    /// Who passkeys are for: the host of `--public-url` and its origin; nil (no passkeys) without one.
    let relyingParty: PasskeyCeremony.RelyingParty?

    /// `templates`: the server's templates (the console's directory), where the sign-in and share pages are.
    public init(store: ServerStore, templates: TemplateLibrary, blocking: BlockingWork = .shared,
                bodyLimit: Int = 16 * 1024 * 1024,
                throttle: SignInThrottle = SignInThrottle(), limits: APILimits = APILimits(), courierHold: Duration = .seconds(30),
                listeners: NotificationListeners = NotificationListeners(), publicURL: String? = nil) {
        html = AuthPages(library: templates)
        relyingParty = PasskeyCeremony.RelyingParty(publicURL: publicURL)
        self.listeners = listeners
        self.courierHold = courierHold
        self.store = store
        self.blocking = blocking
        self.bodyLimit = bodyLimit
        self.throttle = throttle
        self.limits = limits
    }

    /// The API's routes, to be added inside the CloudKit group (`group`): each handler may throw, and the group
    /// answers in CloudKit's envelope with the CORS headers the request's API token allows.
    public func register(_ router: inout Router) {
        let api = self
        // Before the catch-all below, which would read "notifications" as a database.
        registerStreamRoutes(&router)
        // Each operation is its own route, named by it: the request log, metrics and faults read the operation
        // from the route, and no string switch stands between the router and the handler.
        for operation in Self.operations {
            for method in [HTTPMethod.get, .post] {
                router.add(method, Self.operationPrefix + operation.name, bodyLimit: bodyLimit,
                           admit: { req in try await api.admitBody(req) }) { req in
                    try await api.handle(req, operation)
                }
            }
        }
        // Anything else under /database/1 is CloudKit's NOT_FOUND in CloudKit's envelope, not the router's page.
        for method in [HTTPMethod.get, .post] {
            router.add(method, "/database/1/{container}/{environment}/{database}/*", bodyLimit: 64 * 1024) { req in
                throw StratusError(.notFound, "unknown endpoint '\((req.parameters["*"] ?? "").prefix(60))'")
            }
        }
        router.add(.options, "/database/1/{container}/{environment}/{database}/*") { req in await api.preflight(req) }
        registerSignOutRoutes(&router)
        registerTokenExchangeRoutes(&router)
        // APNs tokens use the `device` module with no database segment.
        router.add(.post, "/device/1/{container}/{environment}/tokens/{action}",
                   bodyLimit: 64 * 1024) { req in try await api.deviceTokens(req) }
        SignInPages(store: store, blocking: blocking, throttle: throttle, html: html,
                    identityKeys: identityKeys, relyingParty: relyingParty).register(&router)
    }

    /// The CloudKit group's error owner: CloudKit's envelope (`ErrorEnvelope.errors`), except for a sign-in page's
    /// refused attempt, which is its form again (`SignInPages.errors`).
    public static let errors: RouteGroup.Errors = { error, path in
        error is SignInFailure ? SignInPages.errors(error, path) : ErrorEnvelope.errors(error, path)
    }

    /// The URLs the API hands out (asset uploads and downloads, web courier polls): capabilities in themselves, with
    /// CORS of their own; their refusals are CloudKit's envelope too.
    public func registerHandedOutRoutes(_ router: inout Router) {
        registerAssetRoutes(&router)
        registerCourierRoutes(&router)
    }

    /// The pages a share's URL opens (HTML).
    public func registerSharePages(_ router: inout Router) {
        SharePages(store: store, blocking: blocking, throttle: throttle, html: html).register(&router)
    }


    /// One CloudKit Web Services operation: its name (the path after the database) and what carries it out.
    struct Operation: Sendable {
        let operation: CloudKitOperation
        let run: @Sendable (CloudKitAPI, CloudKitRequest) throws -> HTTPResponse
        init(_ operation: CloudKitOperation, run: @escaping @Sendable (CloudKitAPI,
                                                                       CloudKitRequest) throws -> HTTPResponse) {
            self.operation = operation
            self.run = run
        }
        var name: String { operation.rawValue }
    }

    /// The route every operation's route starts with.
    static let operationPrefix = "/database/1/{container}/{environment}/{database}/"

    /// The CloudKit operation a request was routed to (`records/query`), read from its route; for a path under
    /// `/database/1` that names no operation, what it named. Nil for every other route.
    public static func operationName(route: String, parameters: [String: String]) -> String? {
        guard route.hasPrefix(operationPrefix) else { return nil }
        // The prefix is ASCII: skipped by its bytes, not by walking its Characters (every request's log entry asks).
        let name = String(route[route.utf8.index(route.utf8.startIndex, offsetBy: operationPrefix.utf8.count)...])
        return name == "*" ? parameters["*"].map { String($0.prefix(60)) } : name
    }

    /// Every operation under `/database/1/{container}/{environment}/{database}/`, as CloudKit names them: each
    /// resource's file lists its own.
    static let operations = recordOperations + sharingOperations + zoneOperations + userOperations + assetOperations + subscriptionOperations

    func handle(_ req: HTTPRequest, _ operation: Operation) async throws -> HTTPResponse {
        let (container, environment) = try target(req)
        let database = try DatabaseScope(parsing: req.parameters["database"] ?? "")
        // A GET carries no body (CloudKit's `GET users/discover`): it asks with no members.
        let body = req.method == .get && req.body.isEmpty ? JSON.object([:]) : try JSON.parse(req.body).requestObject()
        _ = try body.bool("numbersAsStrings")
        let api = self
        let authorize = { @Sendable () throws -> CloudKitRequest in
            try api.authorize(req, container, environment, database: database, body: body,
                              operation: operation.operation, audience: .anyCaller)
        }
        // The common case, no fault on (known from memory, no I/O): authorize and run in one `BlockingWork.run`,
        // which runs in place on a connection's own thread.
        if !store.faults.mightFault(container, environment, operation.operation) {
            return try await blocking.run {
                let ctx = try authorize()
                return api.withSession(try operation.run(api, ctx), ctx)
            }
        }
        return try await handleWithFaults(operation, authorize)
    }

    /// CloudKit's error envelope (see `ErrorEnvelope`, the one owner of what errors tell clients).
    func envelope(_ e: StratusError) -> HTTPResponse { ErrorEnvelope.response(e) }

    /// `{"<key>": [ … ]}`, each item written by `each`: the shape of most operations' answers.
    func jsonList<S: Sequence>(_ key: StaticString, _ items: S, _ each: (S.Element,
            inout JSONWriter) -> Void) -> HTTPResponse {
        json { w in
            w.beginObject()
            w.key(key)
            w.beginArray()
            for item in items { each(item, &w) }
            w.endArray()
            w.endObject()
        }
    }

    /// `{"<key>": [ … ]}` for answers that can be large (records): past a few hundred kilobytes the items go to the
    /// request's spool (see `AnswerWriter`).
    func spooledList<S: Sequence>(_ ctx: CloudKitRequest, _ key: StaticString, _ items: S, _ each: (S.Element,
            inout JSONWriter) -> Void) throws -> HTTPResponse {
        var answer = AnswerWriter(spool: answerSpool(ctx))
        answer.json.beginObject()
        answer.json.key(key)
        answer.json.beginArray()
        for item in items {
            each(item, &answer.json)
            try answer.checkpoint()
        }
        answer.json.endArray()
        answer.json.endObject()
        return try answer.response()
    }

    /// The spool a request's large answer may go to, charged to its user (or its API token).
    func answerSpool(_ ctx: CloudKitRequest) -> AnswerSpool {
        AnswerSpool(budget: ctx.request.answers,
                    credential: ctx.auth.userRecordName.map { "user \(ctx.container.rawValue)/\($0)" } ?? "token \(ctx.auth.token.id)")
    }

    func json(_ build: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter()
        build(&w)
        return .json(w.data)
    }

    func encoding(_ ctx: CloudKitRequest) -> WireEncoding {
        let base = baseURL(ctx.request), now = WallClock.nowMillis()
        let env = try? env(ctx)
        return WireEncoding(numbersAsStrings: (try? ctx.body.bool("numbersAsStrings")) ?? false,
                            timestamps: ctx.timestamps, encryptedFields: ctx.store.schema.encryptedFields,
                            assetURL: { checksum in env?.assets.assetDownloadPath(checksum: checksum,
                                    now: now).map { base + $0 } })
    }

    /// CORS, the CloudKit group's middleware: a browser page may read an answer (errors included) only when its
    /// origin is listed, exactly, on the live API token the request names (the token rides in the query string).
    /// An empty list admits no browser origin. Preflights answer for themselves.
    public var cors: RouteGroup.Middleware {
        let api = self
        return { req, next in
            let response = try await next(req)
            return req.method == .options ? response : await api.corsHeaders(response, req)
        }
    }

    func corsHeaders(_ response: HTTPResponse, _ req: HTTPRequest) async -> HTTPResponse {
        var r = response
        guard let origin = req.headers["origin"] else { return r }
        r.headers["vary"] = "Origin"
        let api = self
        if req.query("ckAPIToken") != nil, (try? await blocking.run { api.allowsBrowser(req,
                origin: origin) }) == true {
            r.headers["access-control-allow-origin"] = origin
            r.headers["access-control-expose-headers"] = "X-Apple-CloudKit-Web-Auth-Token"
        }
        return r
    }

    /// Whether the request's API token (cached after its first check) lists this browser origin.
    func allowsBrowser(_ req: HTTPRequest, origin: String) -> Bool {
        guard let secret = req.query("ckAPIToken"),
              let token = try? store.credentials.authenticateAPIToken(secret) else { return false }
        if let c = req.parameters["container"], c != token.container.rawValue { return false }
        if let e = req.parameters["environment"], e != token.environment.rawValue { return false }
        return token.allowsBrowser(origin: origin)
    }

    func preflight(_ req: HTTPRequest) async -> HTTPResponse {
        var r = HTTPResponse(status: .noContent)
        guard let origin = req.headers["origin"] else { return r }
        r.headers["vary"] = "Origin"
        let api = self
        guard (try? await blocking.run { api.allowsBrowser(req,
                                                           origin: origin) }) == true else { r.status = .forbidden; return r }
        r.headers["access-control-allow-origin"] = origin
        r.headers["access-control-allow-methods"] = "GET, POST, OPTIONS"
        r.headers["access-control-allow-headers"] = req.headers["access-control-request-headers"] ?? "content-type"
        r.headers["access-control-max-age"] = "600"
        return r
    }

    /// Adds the web auth token header CloudKit JS reads after every authenticated response.
    func withSession(_ response: HTTPResponse, _ ctx: CloudKitRequest) -> HTTPResponse {
        var r = response
        if let t = ctx.auth.rotatedToken ?? ctx.auth.webAuthToken { r.headers["x-apple-cloudkit-web-auth-token"] = t }
        if let user = ctx.auth.userRecordName { r.annotations["user"] = user }
        return r
    }
}

/// How every CloudKit entry point learns who asks for what, in two steps: `target` before a thread is taken (the
/// address's request budget, the route's container and environment), `authorize` on a blocking thread (the
/// environment opened, the credentials checked, the user's request budget, the rules of keys and databases).
extension CloudKitAPI {
    /// Who an entry point serves.
    enum Audience {
        /// Any caller with the container environment's API token (or a server-to-server key), signed in or not.
        case anyCaller
        /// A signed-in user only: others are answered AUTHENTICATION_REQUIRED with the sign-in URL.
        case signedInUser
    }

    /// The container and environment the route names, after the client address's request budget.
    func target(_ req: HTTPRequest) throws -> (ContainerID, ContainerEnvironment) {
        try limits.admit(address: req.clientAddress)
        return (try ContainerID(req.parameters["container"] ?? ""),
                try ContainerEnvironment(parsing: req.parameters["environment"] ?? ""))
    }

    /// The request's context: opening the environment answers NOT_FOUND for an unknown container (from a cache
    /// after the first time), then the credentials are checked and the user's request budget spent. A key acts as
    /// the developer who created it, on the public database only: it may ask who that is (`users/caller`,
    /// `users/current`; CloudKit JS's `setUpAuth()` does, before anything else) and nothing of other users.
    /// Private and shared databases belong to a signed-in user.
    func authorize(_ req: HTTPRequest, _ container: ContainerID, _ environment: ContainerEnvironment,
                   database: DatabaseScope = .public,
                   body: JSON = .object([:]), operation: CloudKitOperation? = nil, audience: Audience) throws -> CloudKitRequest {
        let opened = try store.environment(container, environment)
        let a = try authenticate(req, container: container, environment: environment, in: opened)
        if let user = a.userRecordName { try limits.admit(user: "\(container.rawValue)/\(user)") }
        if a.serverToServer, let operation, operation.isAboutUsers, operation != .usersCaller, operation != .usersCurrent {
            throw StratusError.authenticationFailed("the server-to-server key verified, but \(operation.rawValue) needs a signed-in user (ckWebAuthToken): a key may ask users/caller and users/current only")
        }
        if a.serverToServer && database != .public {
            throw StratusError.authenticationFailed("server-to-server keys act on the public database only")
        }
        if database != .public || audience == .signedInUser { _ = try requireUser(a, req, container: container,
                environment: environment) }
        return CloudKitRequest(container: container, environment: environment, database: database, auth: a, body: body,
                               request: req, store: opened)
    }
}
