import StratusHTTP
import StratusModel

/// Administrators (owners only): each administrator with the roles they hold, granting a role in a container or
/// over every container, and revoking one, as `stratus admin grant|revoke` do. Every change is audited; the last
/// owner of every container stays one.
struct AdministratorPages: ConsolePageGroup {
    let console: Console

    static func register(_ router: inout Router, console c: Console) {
        addSignedIn(to: &router, console: c) { routes in
            let base = ConsolePaths.administrators
            routes.get(base, need: .administrators) { g, req, s in try g.administratorsPage(req, s) }
            routes.post(base + "/grant", need: .administrators) { g, req, s in try g.grant(req, s) }
            routes.post(base + "/revoke", need: .administrators) { g, req, s in try g.revoke(req, s) }
            routes.post(ConsolePaths.administrators + "/reset-two-factor", need: .administrators) { g, req, s in
                try g.resetTwoFactor(req, s)
            }
            routes.post(ConsolePaths.administrators + "/tokens", need: .administrators) { g, req, s in
                try g.createToken(req, s)
            }
            routes.post(ConsolePaths.administrators + "/tokens/{id}/revoke", need: .administrators) { g, req, s in
                try g.revokeToken(req, s)
            }
        }
    }

    func administratorsPage(_ req: HTTPRequest, _ s: Session, error: String? = nil,
                            madeToken: String? = nil) throws -> HTTPResponse {
        let admins = try store.admins.allWithRoles()
        let rows = admins.map { a in
            AdministratorsView.Admin(email: a.admin.email, roles: a.roles.spelled,
                                     twoFactor: (try? store.admins.twoFactor.hasSecondFactor(a.admin)) ?? false,
                                     grants: ([a.roles.everywhere.map { ("", "all containers", $0) }].compactMap { $0 }
                                              + a.roles.containers.sorted { $0.key < $1.key }
                                                .map { ($0.key.rawValue, $0.key.rawValue, $0.value) })
                                        .map { AdministratorsView.Grant(container: $0.0, label: $0.1,
                                                                        role: $0.2.rawValue) })
        }
        if Console.wantsJSON(req) {
            return Console.jsonAnswer(["administrators": admins.map {
                AdministratorsView.AdminJSON(email: $0.admin.email, everywhere: $0.roles.everywhere?.rawValue,
                                             containers: Dictionary(uniqueKeysWithValues: $0.roles.containers
                                                .map { ($0.key.rawValue, $0.value.rawValue) }))
            }])
        }
        let view = AdministratorsView(title: "Administrators", admins: rows, roles: AdminRole.allCases.reversed()
                                        .map(\.rawValue),
                                      containers: try store.containers().map(\.id.rawValue),
                                      grantAction: ConsolePaths.administrators + "/grant",
                                      revokeAction: ConsolePaths.administrators + "/revoke",
                                      resetAction: ConsolePaths.administrators + "/reset-two-factor",
                                      tokens: try store.admins.tokens().map { t in
                                          AdministratorsView.Token(name: t.name, roles: t.roles.spelled,
                                                                   expires: t.expiresAt.map(Console.iso) ?? "never",
                                                                   createdBy: t.createdBy,
                                                                   revokeAction: ConsolePaths.administrators
                                                                    + "/tokens/\(t.id)/revoke")
                                      },
                                      tokenAction: ConsolePaths.administrators + "/tokens", madeToken: madeToken,
                                      error: error, message: req.query("done"),
                                      crumbs: [Crumb(href: ConsolePaths.home, label: "Containers")])
        return render("administrators", view, session: s, status: error == nil ? .ok : .badRequest)
    }

    /// `administrators.mustache`.
    struct AdministratorsView: Encodable {
        struct Grant: Encodable { let container, label, role: String }
        struct Admin: Encodable { let email, roles: String; let twoFactor: Bool; let grants: [Grant] }
        struct AdminJSON: Encodable { let email: String; let everywhere: String?; let containers: [String: String] }
        let title: String
        let admins: [Admin]
        let roles, containers: [String]
        let grantAction, revokeAction, resetAction: String
        struct Token: Encodable { let name, roles, expires, createdBy, revokeAction: String }
        let tokens: [Token]
        let tokenAction: String
        /// A token just made: its secret, shown this once.
        let madeToken: String?
        let error, message: String?
        let crumbs: [Crumb]
    }

    func grant(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let f = form(req)
        let email = f["email"] ?? ""
        do {
            let role = try AdminRole(parsing: f["role"] ?? "")
            let container = try Self.container(f["container"])
            try store.admins.grant(role, email: email, container: container)
            let place = container.map { "in \($0)" } ?? "in every container"
            try audit(s, nil, "grant role", "\(email): \(role.rawValue) \(place)", container: container)
            return .redirect(to: ConsolePaths.administrators(done: "\(email) is now \(role.rawValue) \(place)."))
        } catch let e as StratusError where e.code == .badRequest || e.code == .notFound {
            return try administratorsPage(req, s, error: e.reason)
        }
    }

    func revoke(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let f = form(req)
        let email = f["email"] ?? ""
        do {
            let container = try Self.container(f["container"])
            try store.admins.revoke(email: email, container: container)
            try audit(s, nil, "revoke role", "\(email) " + (container.map { "in \($0)" } ?? "everywhere"),
                      container: container)
            return .redirect(to: ConsolePaths.administrators(done: "Revoked \(email)'s role."))
        } catch let e as StratusError where e.code == .badRequest || e.code == .notFound {
            return try administratorsPage(req, s, error: e.reason)
        }
    }

    func createToken(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let f = form(req)
        do {
            let role = try AdminRole(parsing: f["role"] ?? "")
            let container = try Self.container(f["container"])
            let days = Int64(f["days"] ?? "") ?? 0
            guard (0...3650).contains(days) else {
                throw StratusError.badRequest("a token lives 1 to 3650 days, or always")
            }
            let (token, secret) = try store.admins.createToken(name: f["name"] ?? "", container: container, role: role,
                                                               expiresAt: days == 0 ? nil
                                                                : WallClock.nowMillis() + days * 86_400_000,
                                                               by: s.admin.email)
            try audit(s, nil, "create admin token", "\(token.name): \(token.roles.spelled)", container: container)
            return try administratorsPage(req, s, madeToken: secret)
        } catch let e as StratusError where [.badRequest, .notFound, .limitExceeded].contains(e.code) {
            return try administratorsPage(req, s, error: e.reason)
        }
    }

    /// An owner resets another administrator's second factor (lost device): their sessions end, and they sign in
    /// with the password alone until they enrol again.
    func resetTwoFactor(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let email = form(req)["email"] ?? ""
        do {
            try store.admins.twoFactor.resetTwoFactor(email: email)
        } catch {
            // The one refusal (no such administrator) is said on the page.
            guard error.code == .notFound else { throw error }
            return try administratorsPage(req, s, error: error.reason)
        }
        try audit(s, nil, "reset second factor", email)
        return .redirect(to: ConsolePaths.administrators(done: "Reset \(email)'s second factor."))
    }

    func revokeToken(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        guard let id = Int64(req.parameters["id"] ?? "") else { throw StratusError(.notFound, "No such token.") }
        try store.admins.revokeToken(id)
        try audit(s, nil, "revoke admin token", "\(id)")
        return .redirect(to: ConsolePaths.administrators(done: "Revoked the admin token."))
    }

    /// The form's container: empty for every container.
    private static func container(_ text: String?) throws(StratusError) -> ContainerID? {
        guard let text, !text.isEmpty else { return nil }
        guard let id = try? ContainerID(text) else { throw .badRequest("'\(text.prefix(100))' is not a container") }
        return id
    }
}
