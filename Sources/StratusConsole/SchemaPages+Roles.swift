import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Security roles of the public database: the roles × record types × CREATE/READ/WRITE matrix (edited in
/// Development, carried to Production by deploy), custom roles, and which users hold them (per environment).
extension SchemaPages {
    static let permissions: [(Permission, String)] = [(.create, "CREATE"), (.read, "READ"), (.write, "WRITE")]

    func rolesPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let schema = try scope.env.schema.current()
        let roles = SecurityRole.builtIn + schema.roles
        let label = [SecurityRole.world: "World", SecurityRole.authenticated: "Authenticated",
                     SecurityRole.creator: "Creator"]
        let editable = !scope.isProduction
        let rows = schema.recordTypes.map { t in
            RolesView.Row(type: t.name, cells: roles.map { r in
                let g = t.grants[r] ?? []
                return RolesView.Cell(role: r, legend: "\(label[r] ?? r) on \(t.name)", perms: Self.permissions.map { p,
                                      name in
                    RolesView.Permission(name: name, checked: g.contains(p), field: "grant:\(t.name):\(r)")
                }, summary: g.names.joined(separator: ", "))
            })
        }
        let users = try store.accounts.users(container: scope.container)
        let mask = UserDataMask(scope)
        let email = Dictionary(users.map { ($0.userRecordName, mask.email($0.email)) }, uniquingKeysWith: { a, _ in a })
        let custom = try schema.roles.map { r in
            let members = try scope.env.schema.members(of: r).map { u in RolesView.Member(user: u,
                    email: email[u] ?? "", role: r) }
            return RolesView.CustomRole(name: r, members: members, hasMembers: !members.isEmpty,
                                        action: scope.paths.roleMembers(r),
                                        deleteAction: editable ? scope.paths.deleteRole(r) : nil,
                                        users: users.map { UserJSON(userRecordName: $0.userRecordName,
                                                                    email: mask.email($0.email)) })
        }
        let view = RolesView(roles: roles.map { .init(name: $0, label: label[$0] ?? $0) }, rows: rows,
                             editable: editable,
                             custom: custom, hasUsers: !users.isEmpty, hasTypes: !rows.isEmpty, message: req.query("done"))
        let json = RolesView.JSON(roles: roles,
                                  grants: Dictionary(schema.recordTypes.map { t in (t.name,
                                          t.grants.mapValues(\.names)) }, uniquingKeysWith: { a, _ in a }),
                                  members: Dictionary(custom.map { ($0.name, $0.members.map(\.user)) },
                                                      uniquingKeysWith: { a, _ in a }))
        return page(r, tab: .roles, "roles", title: "Security roles", view, json: json)
    }

    /// `roles.mustache`: the permission matrix (record types × roles) and the custom roles' members.
    struct RolesView: Encodable {
        struct Role: Encodable { let name, label: String }
        struct Permission: Encodable { let name: String; let checked: Bool; let field: String }
        struct Cell: Encodable {
            let role: String
            /// Names the cell's group of checkboxes: which role, on which record type.
            let legend: String
            let perms: [Permission]
            let summary: String
        }
        struct Row: Encodable { let type: String; let cells: [Cell] }
        struct Member: Encodable { let user, email, role: String }
        struct CustomRole: Encodable {
            let name: String
            let members: [Member]
            let hasMembers: Bool
            let action: String
            let deleteAction: String?
            let users: [UserJSON]
        }
        struct JSON: Encodable { let roles: [String]; let grants: [String: [String: [String]]]; let members: [String: [String]] }
        let roles: [Role]
        let rows: [Row]
        let editable: Bool
        let custom: [CustomRole]
        let hasUsers, hasTypes: Bool
        let message: String?
    }

    /// The whole matrix as submitted: an unticked box is a permission taken away.
    func saveGrants(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        var granted: [String: [String: Permission]] = [:]
        for i in HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)) where i.name.hasPrefix("grant:") {
            let parts = i.name.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3, let p = Permission(name: i.value) else { continue }
            granted[parts[1], default: [:]][parts[2], default: []].insert(p)
        }
        var changed: [String] = []
        try editSchema(s, scope, "security roles") { (schema: inout Schema) throws(StratusError) in
            let roles = SecurityRole.builtIn + schema.roles
            for i in schema.recordTypes.indices {
                let t = schema.recordTypes[i]
                var grants: [String: Permission] = [:]
                for r in roles { if let g = granted[t.name]?[r], !g.isEmpty { grants[r] = g } }
                if grants != t.grants.filter({ !$0.value.isEmpty }) { changed.append(t.name) }
                schema.recordTypes[i].grants = grants
            }
        }
        return .redirect(to: scope.paths.roles(done: changed.isEmpty ? "Nothing changed." : "Saved roles for \(changed.joined(separator: ", ")). Deploy to take them to Production."))
    }

    func createRole(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = (formValue(req, "name") ?? "").trimmingCharacters(in: .whitespaces)
        try editSchema(s, scope, "create role \(name)") { (schema: inout Schema) throws(StratusError) in
            try Names.validate(roleName: name)
            guard !SecurityRole.isBuiltIn(name), !schema.roles.contains(name) else { throw StratusError(.exists,
                    "There is already a role \(name).") }
            schema.roles.append(name)
        }
        return .redirect(to: scope.paths.roles(done: "Created role \(name)."))
    }

    func deleteRole(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let name = req.parameters["role"] ?? ""
        try editSchema(s, scope, "delete role \(name)") { (schema: inout Schema) throws(StratusError) in
            guard schema.roles.contains(name) else { throw StratusError(.notFound, "There is no custom role \(name).") }
            schema.roles.removeAll { $0 == name }
            for i in schema.recordTypes.indices { schema.recordTypes[i].grants[name] = nil }
        }
        return .redirect(to: scope.paths.roles(done: "Deleted role \(name)."))
    }

    /// Adds a user (by email or user record name) to a role, or removes one (`remove=USER`).
    func changeMembers(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let role = req.parameters["role"] ?? ""
        let f = form(req)
        if let remove = f["remove"], !remove.isEmpty {
            try scope.env.schema.removeRole(role, from: remove)
            try audit(s, scope, "remove role member", "\(role): \(remove)")
            return .redirect(to: scope.paths.roles(done: "Removed \(remove) from \(role)."))
        }
        let who = (f["user"] ?? "").trimmingCharacters(in: .whitespaces)
        let user = try store.accounts.user(container: scope.container,
                                           userRecordName: who) ?? store.accounts.user(container: scope.container,
                email: who)
        guard let user else { throw StratusError(.notFound, "This container has no user \(who.prefix(80)).") }
        try scope.env.schema.assignRole(role, to: user.userRecordName)
        try audit(s, scope, "add role member", "\(role): \(user.userRecordName)")
        return .redirect(to: scope.paths.roles(done: "Added \(user.email) to \(role)."))
    }
}
