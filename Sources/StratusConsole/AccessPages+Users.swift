import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// The environment's users, and acting as one of them. "Act as" is chosen once per session and container environment
/// (`ServerStore.setActingAs`); every Data page of the private and shared databases then reads as that user through
/// the store's own permission checks, as CloudKit Console's "Act as iCloud account" does. In Production it needs the
/// server's `--allow-production-user-data`, and every page read while acting there is audited.
extension AccessPages {
    func usersPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let activity = try store.accounts.userActivity(container: scope.container)
        let data = try scope.env.records.privateDataByOwner()
        // Outside what an admin may browse (Production without the server's consent) an email is shown masked.
        let emailsShown = scope.userDataBrowsable
        let ways = try store.identities.signInWays(container: scope.container)
        let names = Dictionary(try store.identities.providers(container: scope.container).map { ($0.issuer, $0.name) },
                               uniquingKeysWith: { a, _ in a })
        let users = try store.accounts.users(container: scope.container).map { u in
            let a = activity[u.userRecordName]
            let d = data[u.userRecordName]
            let (signsInWith, unlinks) = Self.ways(ways[u.userRecordName] ?? SignInWays(), names: names,
                                                   action: scope.paths.unlinkUser(u.userRecordName))
            return UsersView.User(
                name: UserDataMask.displayName(u), email: emailsShown ? u.email : UserDataMask.maskedEmail(u.email), userRecordName: u.userRecordName,
                discoverable: u.discoverable ? "Discoverable" : "Not discoverable",
                created: a.map { ValueDisplay.utcString($0.created) } ?? "",
                lastSignIn: a?.lastSignIn.map(ValueDisplay.utcString) ?? "Not signed in now",
                privateData: d.map { "\($0.records) record\($0.records == 1 ? "" : "s") in \($0.zones) zone\($0.zones == 1 ? "" : "s")" } ?? "None",
                actAction: scope.paths.actAs(), acting: scope.actingAs?.userRecordName == u.userRecordName,
                signOutAction: scope.paths.signOutUser(u.userRecordName),
                purgeAction: scope.isProduction ? nil : scope.paths.purgeUser(u.userRecordName),
                signsInWith: signsInWith, unlinks: unlinks)
        }
        let json = users.map { UserJSON(userRecordName: $0.userRecordName, email: $0.email) }
        return page(r, tab: .users, "users", title: "Users",
                    UsersView(users: users, hasUsers: !users.isEmpty, browsable: scope.userDataBrowsable,
                              message: req.query("done")),
                    json: ["users": json])
    }

    /// `users.mustache`.
    struct UsersView: Encodable {
        struct User: Encodable {
            let name, email, userRecordName, discoverable, created, lastSignIn, privateData, actAction: String
            let acting: Bool
            let signOutAction: String
            let purgeAction: String?
            /// "password · 2 passkeys · apple", and a button per way an admin may take (never the last).
            let signsInWith: String
            let unlinks: [Unlink]
        }
        struct Unlink: Encodable { let label, way, action: String }
        let users: [User]
        let hasUsers, browsable: Bool
        let message: String?
    }

    /// The "Act as" chooser: the environment's users whose email or name holds `q`, each with a button.
    func actAsPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        try actAsChooser(r, tab: .actAs, database: nil)
    }

    /// Private and shared pages without a user to read as: the same chooser, above the database switch.
    func chooseUserPage(_ r: ConsoleRequest, tab: ConsoleTab) throws -> HTTPResponse {
        let scope = r.scope
        return try actAsChooser(r, tab: tab, database: scope.database?.rawValue)
    }

    private func actAsChooser(_ r: ConsoleRequest, tab: ConsoleTab, database: String?) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        if !scope.userDataBrowsable {
            throw StratusError(.accessDenied,
                               "Acting as a user in Production needs the server to be started with --allow-production-user-data.")
        }
        let q = (req.query("q") ?? "").trimmingCharacters(in: .whitespaces)
        let users = try store.accounts.users(container: scope.container).filter { u in
            q.isEmpty || u.email.localizedCaseInsensitiveContains(q) || UserDataMask.displayName(u).localizedCaseInsensitiveContains(q) || u.userRecordName == q
        }.map { u in
            ActAsView.User(name: UserDataMask.displayName(u), email: u.email, userRecordName: u.userRecordName,
                           isTestUser: u.email == AccountStore.testUserEmail(scope.container))
        }
        // In Development the test user is offered even before anyone became it (it is made when chosen).
        let testEmail = AccountStore.testUserEmail(scope.container)
        let offerTestUser = !scope.isProduction && !users.contains { $0.isTestUser } && (q.isEmpty || "test user".localizedCaseInsensitiveContains(q) || testEmail.contains(q))
        let view = ActAsView(users: users, hasUsers: !users.isEmpty || offerTestUser, offerTestUser: offerTestUser,
                             testUser: Self.testUserChoice, q: q, searchAction: scope.paths.actAs(),
                actAction: scope.paths.actAs(),
                             back: database.map { _ in req.rawPath } ?? "", database: database, isProduction: scope.isProduction)
        return page(r, tab: tab, "act-as", title: "Act as a user", view,
                    json: ["users": users.map { UserJSON(userRecordName: $0.userRecordName, email: $0.email) }])
    }

    /// `act-as.mustache`.
    struct ActAsView: Encodable {
        struct User: Encodable { let name, email, userRecordName: String; let isTestUser: Bool }
        let users: [User]
        let hasUsers, offerTestUser: Bool
        /// The form value that stands for the Development test user before it exists.
        let testUser, q, searchAction, actAction, back: String
        let database: String?
        let isProduction: Bool
    }

    /// Starts acting as a user of this container environment. The user must exist here (a forged or stale name is
    /// refused); Production needs the server's consent and an explicit confirmation, and is audited.
    func actAs(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, s, scope) = (r.request, r.session, r.scope)
        let f = form(req)
        let name = f["user"] ?? ""
        let found = name == Self.testUserChoice && !scope.isProduction
            ? try store.accounts.testUser(container: scope.container)
            : try store.accounts.user(container: scope.container, userRecordName: name)
        guard let user = found else {
            throw StratusError(.notFound, "This container has no such user: choose one from the list.")
        }
        if scope.isProduction {
            guard console.allowProductionUserData else {
                throw StratusError(.accessDenied,
                                   "Acting as a user in Production needs the server to be started with --allow-production-user-data.")
            }
            guard f["confirm"] == "yes" else {
                throw StratusError(.badRequest,
                                   "Acting as a user in Production shows their real data: tick the confirmation to go on.")
            }
        }
        try store.admins.setActingAs(ActingAs(container: scope.container.rawValue,
                                              environment: scope.environment.rawValue,
                userRecordName: user.userRecordName),
                              session: s.token)
        try audit(s, scope, "act as user", user.userRecordName)
        // Back to the private or shared page that asked for a user, else the user's private records.
        if let back = f["back"], back.hasPrefix(scope.paths.base + "/"), !back.contains("//") { return .redirect(to: back) }
        return .redirect(to: scope.paths.database(.private).records())
    }

    func stopActing(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (s, scope) = (r.session, r.scope)
        try store.admins.setActingAs(nil, session: s.token)
        if let acting = scope.actingAs { try audit(s, scope, "stop acting as user", acting.userRecordName) }
        return .redirect(to: scope.paths.users(done: "Stopped acting as \(scope.actingAs?.email ?? "a user")."))
    }

    /// Not a user record name (those start with `_`): the Development test user, made when chosen.
    static let testUserChoice = "test-user"
}

extension AccessPages {
    /// How a user signs in, as the Users page says it, and the ways it offers to unlink (none when only one is left).
    static func ways(_ w: SignInWays, names: [String: String],
                     action: String) -> (String, [UsersView.Unlink]) {
        let provider = { (issuer: String) in names[issuer] ?? URL(string: issuer)?.host ?? issuer }
        var said: [String] = []
        if w.password { said.append("password") }
        if w.passkeys > 0 { said.append(w.passkeys == 1 ? "a passkey" : "\(w.passkeys) passkeys") }
        said += w.issuers.map(provider)
        guard w.count > 1 else { return (said.joined(separator: " · "), []) }
        var unlinks = w.issuers.map {
            UsersView.Unlink(label: "Unlink \(provider($0))", way: "issuer:" + $0, action: action)
        }
        if w.passkeys > 0 && w.count > w.passkeys {
            unlinks.append(UsersView.Unlink(label: w.passkeys == 1 ? "Remove the passkey" : "Remove the passkeys",
                                            way: "passkeys", action: action))
        }
        return (said.joined(separator: " · "), unlinks)
    }
}
