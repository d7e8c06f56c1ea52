import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Who calls the admin API and what they may do: the bearer of `--admin-token-file`'s token is an owner of every
/// container; the bearer of a scoped token (`stratus admin token create`) acts with exactly its role, where it
/// was given. Each endpoint asks for the action it does (`authorize`), so a developer's token changes Development
/// and reads the rest, and never deploys to Production.
extension AdminEndpoints {
    struct Caller {
        let who: String
        let roles: AdminRoles
    }

    /// The caller of this request; nil when its bearer is no live token.
    func caller(_ req: HTTPRequest) -> Caller? {
        let bearer = req.bearerToken
        if let token, Secrets.constantTimeEquals(bearer, token) {
            return Caller(who: "admin endpoint (bearer token)", roles: .owner)
        }
        guard let scoped = (try? store.admins.authenticateToken(bearer)) ?? nil else { return nil }
        return Caller(who: "admin token \(scoped.name)", roles: scoped.roles)
    }

    /// The caller, if they may do `action` in `container`; ACCESS_DENIED (403) saying the role needed otherwise.
    @discardableResult
    func authorize(_ req: HTTPRequest, _ action: AdminAction, in container: ContainerID?) throws -> Caller {
        guard let caller = caller(req) else {
            throw StratusError(.authenticationFailed, "the admin endpoints need Authorization: Bearer <an admin token>")
        }
        guard caller.roles.allows(action, in: container) else {
            let place = container.map { "in \($0)" } ?? "over every container"
            throw StratusError(.accessDenied, "this needs the \(AdminRole.needed(for: action).rawValue) role \(place); "
                               + "the token is \(caller.roles.spelled)")
        }
        return caller
    }

    /// What CI changes on a remote server: Development's schema, and the deploy to Production.
    func registerSchemaRoutes(_ router: inout Router) {
        let admin = self
        router.add(.post, "/-/admin/containers/{container}/development/schema", bodyLimit: 4 << 20) { req in
            try await BlockingWork.shared.run { try admin.importSchema(req) }
        }
        router.add(.post, "/-/admin/containers/{container}/deploy", bodyLimit: 4096) { req in
            try await BlockingWork.shared.run { try admin.deploy(req) }
        }
    }

    /// `POST /-/admin/containers/{c}/development/schema` with a `.ckdb` body: imported into Development as the
    /// console's import does (refused, changing nothing, when the change is one Development cannot make), answering
    /// the changes made.
    func importSchema(_ req: HTTPRequest) throws -> HTTPResponse {
        let container = try ContainerID(req.parameters["container"] ?? "")
        let caller = try authorize(req, .change(.development), in: container)
        let schema: Schema
        do { schema = try SchemaParser.parse(String(decoding: req.body, as: UTF8.self)) } catch {
            throw StratusError.badRequest("the schema has an error at \(error.description)")
        }
        let plan = try store.lifecycle.importPlan(schema, into: container)
        try plan.validate()
        try store.lifecycle.importSchema(schema, into: container)
        let changes = plan.changes.map(\.description)
        try audit("import schema", container: container.rawValue, environment: "development",
                  detail: changes.joined(separator: "; "), by: caller.who)
        return Self.json(["container": .string(container.rawValue), "changes": .array(changes.map(JSON.string))])
    }

    /// `POST /-/admin/containers/{c}/deploy`: Development's schema to Production, as the console's Deploy does.
    func deploy(_ req: HTTPRequest) throws -> HTTPResponse {
        let container = try ContainerID(req.parameters["container"] ?? "")
        let caller = try authorize(req, .changeContainer, in: container)
        let diff = try store.lifecycle.deploy(container, by: caller.who)
        let changes = diff.changes.map(\.description)
        try audit("deploy", container: container.rawValue, environment: "production",
                  detail: changes.joined(separator: "; "), by: caller.who)
        return Self.json(["container": .string(container.rawValue), "changes": .array(changes.map(JSON.string))])
    }
}
