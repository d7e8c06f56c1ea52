import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// `/-/admin/…`: what a CI script does to a server without a person — faults between test steps, throw-away
/// containers, snapshots, schema imports and deploys — for the bearer of `serve --admin-token-file`'s token (an
/// owner) or of a scoped admin token (one role, in one container or every container; see `authorize`).
struct AdminEndpoints {
    let store: ServerStore
    let token: String?
    /// `serve --allow-production-admin`: faults, snapshots and restores of Production.
    var allowProduction = false

    /// Every change made here goes to the audit log, as the console's and the command line's do.
    func audit(_ action: String, container: String?, environment: String?, detail: String = "",
               by who: String = "admin endpoint (bearer token)") throws {
        try store.admins.audit(AuditEntry(at: WallClock.nowMillis(), admin: who,
                                          action: action, container: container,
                                   environment: environment, detail: detail))
    }

    func register(_ router: inout Router) {
        let admin = self
        router.add(.get, "/-/admin/faults") { req in try await BlockingWork.shared.run { try admin.list(req) } }
        router.add(.post, "/-/admin/faults",
                   bodyLimit: 16 * 1024) { req in try await BlockingWork.shared.run { try admin.add(req) } }
        router.add(.delete, "/-/admin/faults") { req in try await BlockingWork.shared.run { try admin.clear(req,
                id: nil) } }
        router.add(.delete, "/-/admin/faults/{id}") { req in
            try await BlockingWork.shared.run {
                guard let id = Int64(req.parameters["id"] ?? "") else { throw StratusError.badRequest("a fault id is a number") }
                return try admin.clear(req, id: id)
            }
        }
        // Throw-away test data for CI: a container from a schema and a seed in one call, and snapshots to reset to.
        router.add(.post, "/-/admin/containers",
                   bodyLimit: 64 << 20) { req in try await BlockingWork.shared.run { try admin.createContainer(req) } }
        router.add(.post, "/-/admin/containers/{container}/{environment}/snapshot", bodyLimit: 4096) { req in
            try await BlockingWork.shared.run {
                let (container, environment) = (try ContainerID(req.parameters["container"] ?? ""),
                                                try ContainerEnvironment(parsing: req.parameters["environment"] ?? ""))
                let caller = try admin.authorize(req, .change(environment), in: container)
                let id = try admin.store.lifecycle.snapshot(container, environment,
                                                            allowProduction: admin.allowProduction)
                try admin.audit("snapshot", container: container.rawValue, environment: environment.rawValue,
                                detail: id, by: caller.who)
                return Self.json(["snapshot": .string(id)])
            }
        }
        // `stratus schema check` for a server whose data a CI script cannot open (--ephemeral, or another machine).
        router.add(.get, "/-/admin/containers/{container}/schema-check") { req in
            try await BlockingWork.shared.run {
                let container = try ContainerID(req.parameters["container"] ?? "")
                try admin.authorize(req, .read, in: container)
                let problems = try admin.store.lifecycle.schemaCheck(container: container)
                return Self.json(["ok": .bool(problems.isEmpty),
                                  "problems": .array(problems.map { .string($0.message) })])
            }
        }
        router.add(.post, "/-/admin/containers/{container}/{environment}/restore", bodyLimit: 4096) { req in
            try await BlockingWork.shared.run {
                guard let id = (try? JSON.parse(req.body))?["snapshot"]?.string else {
                    throw StratusError.badRequest("the body is {\"snapshot\": \"<the id snapshot answered>\"}")
                }
                let (container, environment) = (try ContainerID(req.parameters["container"] ?? ""),
                                                try ContainerEnvironment(parsing: req.parameters["environment"] ?? ""))
                let caller = try admin.authorize(req, .change(environment), in: container)
                try admin.store.lifecycle.restore(container, environment, snapshot: id,
                                                  allowProduction: admin.allowProduction)
                try admin.audit("restore snapshot", container: container.rawValue, environment: environment.rawValue,
                                detail: id, by: caller.who)
                return Self.json(["restored": .string(id)])
            }
        }
        registerSchemaRoutes(&router)
    }

    /// `POST /-/admin/containers` with `{"container", "schema": "<.ckdb text>", "deploy": true, "records": "<NDJSON
    /// lines>", "environment": "development"}`: creates the container, imports the schema into Development (and
    /// deploys it to Production with `deploy`, or when the seed is for Production, so that `schema-check` compares
    /// what the app does with what it declared), loads the records into the environment's public database in
    /// atomic batches, and makes an API token of the environment. 201 with `{container, environment, records,
    /// apiToken}`.
    private func createContainer(_ req: HTTPRequest) throws -> HTTPResponse {
        guard let o = try? JSON.parse(req.body), let name = o["container"]?.string else {
            throw StratusError.badRequest("the body is {\"container\", \"schema\": \".ckdb text\", \"records\": \"NDJSON lines\", \"environment\"}")
        }
        let caller = try authorize(req, .serverWide, in: nil)
        let container = try ContainerID(name)
        let environment = try ContainerEnvironment(parsing: o["environment"]?.string ?? "development")
        let schema = try o["schema"]?.string.map { text throws -> Schema in
            do { return try SchemaParser.parse(text) } catch { throw StratusError.badRequest("schema: \(error)") }
        }
        try store.createContainer(container)
        if let schema {
            _ = try store.lifecycle.importSchema(schema, into: container)
            if environment == .production || o["deploy"]?.bool == true { _ = try store.lifecycle.deploy(container,
                    by: caller.who) }
        }
        var loaded = 0
        if let lines = o["records"]?.string, !lines.isEmpty {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-seed-\(UUID().uuidString).ndjson")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data(lines.utf8).write(to: file)
            loaded = try RecordImporter(env: try store.environment(container, environment),
                                        database: .publicDatabase).run(file)
        }
        let token = try store.credentials.createAPIToken(container: container, environment: environment,
                                                         name: "admin endpoint").secret
        try audit("create container", container: container.rawValue, environment: environment.rawValue,
                  detail: "\(loaded) records, an API token", by: caller.who)
        var r = Self.json(["container": .string(container.rawValue), "environment": .string(environment.rawValue),
                           "records": .int(Int64(loaded)), "apiToken": .string(token)])
        r.status = .created
        return r
    }

    /// The admin group's middleware: only the bearer of a live token (`--admin-token-file`'s, or a scoped one)
    /// gets past it; each endpoint then asks for what it does (`authorize`). Without `--admin-token-file` and with
    /// no scoped token presented, the endpoints are off.
    var bearer: RouteGroup.Middleware {
        let admin = self
        return { req, next in
            let caller = try? await BlockingWork.shared.run { admin.caller(req) }
            guard caller != nil || admin.token != nil || !req.bearerToken.isEmpty else {
                return Self.error("the admin endpoints are off: start the server with --admin-token-file, "
                                  + "or make a token with stratus admin token create", status: .forbidden)
            }
            guard caller != nil else {
                var r = Self.error("the admin endpoints need Authorization: Bearer <an admin token>",
                                   status: .unauthorized)
                r.headers["www-authenticate"] = "Bearer"
                return r
            }
            return try await next(req)
        }
    }

    /// The admin group's check before a large body is read: the same Bearer check as `bearer`, so that neither a
    /// stranger nor anyone while the endpoints are off can make the server hold a body only to be refused after.
    var admitBody: Route.Admission {
        let bearer = self.bearer
        return { req in
            let answer = try? await bearer(req) { _ in HTTPResponse(status: .ok) }
            guard let answer, answer.status == .ok else { return .refused(answer ?? Self.error("refused",
                    status: .unauthorized)) }
            return .admitted(credential: "admin token")
        }
    }

    /// The admin group's error owner: `{"reason"}` with the error's status; an internal error's detail is logged
    /// under a uuid the answer quotes.
    static let errors: RouteGroup.Errors = { error, path in
        switch error {
        case let e as HTTPError: return Self.error(e.message, status: e.status)
        case let e as StratusError where e.code != .internalError: return Self.error(e.reason,
                status: HTTPStatus(e.code.httpStatus, e.code.rawValue))
        default:
            let reason = ErrorEnvelope.publicReason(StratusError(.internalError, "\(error)"),
                                                    uuid: UUID().uuidString.lowercased(), path: path)
            return Self.error(reason, status: .internalServerError)
        }
    }

    private func list(_ req: HTTPRequest) throws -> HTTPResponse {
        let container = try req.query("container").map { try ContainerID($0) }
        try authorize(req, .read, in: container)
        let faults = try store.faults.all(container: container)
        return Self.json(["faults": .array(faults.map(Self.object))])
    }

    private func add(_ req: HTTPRequest) throws -> HTTPResponse {
        guard let o = try? JSON.parse(req.body), o.object != nil else { throw StratusError.badRequest("the body must be a JSON object") }
        func string(_ k: String) throws -> String {
            guard let s = o[k]?.string else { throw StratusError.badRequest("'\(k)' is required (a string)") }
            return s
        }
        func int(_ k: String) throws -> Int? {
            guard let v = o[k], !v.isNull else { return nil }
            guard case .int(let n) = v, let i = Int(exactly: n) else { throw StratusError.badRequest("'\(k)' must be a whole number") }
            return i
        }
        let error = try string("error")
        guard let kind = Fault.Kind(rawValue: error) else {
            throw StratusError.badRequest("unknown error '\(error.prefix(40))': use one of \(Fault.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var probability: Double?
        if let p = o["probability"], !p.isNull {
            guard let d = p.double else { throw StratusError.badRequest("'probability' must be a number") }
            probability = d
        }
        func optional(_ k: String) throws -> String? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let s = v.string else { throw StratusError.badRequest("'\(k)' must be a string") }
            return s
        }
        let now = WallClock.nowMillis()
        var f = Fault(container: try ContainerID(try string("container")),
                      environment: try ContainerEnvironment(parsing: try string("environment")),
                      operation: try string("operation"), kind: kind, remaining: try int("count"), probability: probability,
                      seed: UInt64(max(0, try int("seed") ?? 1)), retryAfter: try int("retryAfter"),
                      latencyMilliseconds: try int("latencyMs") ?? 0, createdAt: now,
                      expiresAt: try Fault.expiry(createdAt: now, afterSeconds: try int("expiresIn") ?? 3600))
        if let w = try optional("where") {
            guard let stage = Fault.Stage(rawValue: w) else { throw StratusError.badRequest("'where' must be before, after-commit or per-record") }
            f.stage = stage
        }
        f.user = try optional("user")
        f.zone = try optional("zone")
        f.recordType = try optional("recordType")
        f.recordName = try optional("recordName")
        // Server fields as CloudKit's field JSON: an object, or its text.
        if let sf = o["serverFields"], !sf.isNull { f.serverFields = sf.string ?? sf.serialized }
        let caller = try authorize(req, .change(f.environment), in: f.container)
        let fault = try store.faults.addFault(f, allowProduction: allowProduction)
        try audit("add fault", container: fault.container.rawValue, environment: fault.environment.rawValue,
                  detail: "\(fault.kind.rawValue) on \(fault.operation) (fault \(fault.id))", by: caller.who)
        var r = Self.json(Self.object(fault))
        r.status = .created
        return r
    }

    private func clear(_ req: HTTPRequest, id: Int64?) throws -> HTTPResponse {
        let container = try req.query("container").map { try ContainerID($0) }
        guard id != nil || container != nil else { throw StratusError.badRequest("name a fault (/-/admin/faults/{id}) or a container (?container=C)") }
        let environment = try req.query("environment").map { try ContainerEnvironment(parsing: $0) }
        // Clearing a fault by id alone, or both environments', is a change where Production may be.
        let caller = try authorize(req, .change(environment ?? .production), in: container)
        try store.faults.clearFaults(id: id, container: container, environment: environment)
        try audit("clear faults", container: container?.rawValue, environment: environment?.rawValue,
                  detail: id.map { "fault \($0)" } ?? "all", by: caller.who)
        return Self.json(["cleared": .bool(true)])
    }

    static func object(_ f: Fault) -> JSON {
        var o: [String: JSON] = ["id": .int(f.id), "container": .string(f.container.rawValue),
                                 "environment": .string(f.environment.rawValue),
                                 "operation": .string(f.operation), "error": .string(f.kind.rawValue), "seed": .int(Int64(bitPattern: f.seed)),
                                 "latencyMs": .int(Int64(f.latencyMilliseconds)), "injected": .int(Int64(f.injected)),
                                 "createdAt": .int(f.createdAt), "expiresAt": .int(f.expiresAt), "where": .string(f.stage.rawValue)]
        if let n = f.remaining { o["count"] = .int(Int64(n)) }
        if let p = f.probability { o["probability"] = .double(p) }
        if let r = f.retryAfter { o["retryAfter"] = .int(Int64(r)) }
        for (k, v) in [("user", f.user), ("zone", f.zone), ("recordType", f.recordType), ("recordName", f.recordName),
                       ("serverFields", f.serverFields)] {
            if let v { o[k] = .string(v) }
        }
        return .object(o)
    }

    /// An answer's JSON, keys sorted.
    static func json(_ value: JSON) -> HTTPResponse { .json(Data(value.serialized.utf8)) }

    static func error(_ reason: String, status: HTTPStatus) -> HTTPResponse {
        var w = JSONWriter(capacity: 128)
        w.beginObject()
        w.field("reason", reason)
        w.endObject()
        return .json(w.data, status: status)
    }
}
