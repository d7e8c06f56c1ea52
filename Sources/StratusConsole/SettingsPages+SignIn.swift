import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Settings → Sign-in: the OpenID providers the container's users sign in with (Sign in with Apple, Google, an
/// operator's own), and the ways new accounts are made, as `stratus auth provider` and `stratus auth sign-up` set
/// them. Container-wide: the same in both environments.
extension SettingsPages {
    func signInPage(_ r: ConsoleRequest, error: String? = nil) throws -> HTTPResponse {
        let scope = r.scope
        let web = Set(try store.identities.webProviders(container: scope.container))
        let providers = try store.identities.providers(container: scope.container).map { p in
            SignInView.Provider(name: p.name, issuer: p.issuer, clientIDs: p.clientIDs.joined(separator: ", "),
                                removeAction: scope.paths.removeProvider(p.name), web: web.contains(p.name))
        }
        let ways = try store.accounts.signUpWays(container: scope.container)
        let view = SignInView(providers: providers, hasProviders: !providers.isEmpty,
                              password: ways.contains(.password), passkey: ways.contains(.passkey),
                              provider: ways.contains(.provider),
                              providersAction: scope.paths.providers(), signUpAction: scope.paths.signUpWays(),
                              appleIssuer: IdentityProvider.appleIssuer, error: error, message: r.request.query("done"))
        let json = SignInView.JSON(providers: providers.map { .init(name: $0.name, issuer: $0.issuer) },
                                   signUp: ways.sorted().map(\.rawValue))
        return page(r, tab: .signIn, "sign-in", title: "Sign-in", view, json: json,
                    status: error == nil ? .ok : .badRequest)
    }

    /// `sign-in.mustache`.
    struct SignInView: Encodable {
        struct Provider: Encodable { let name, issuer, clientIDs, removeAction: String; let web: Bool }
        struct JSON: Encodable {
            struct Provider: Encodable { let name, issuer: String }
            let providers: [Provider]
            let signUp: [String]
        }
        let providers: [Provider]
        let hasProviders, password, passkey, provider: Bool
        let providersAction, signUpAction, appleIssuer: String
        let error, message: String?
    }

    func addProvider(_ r: ConsoleRequest) throws -> HTTPResponse {
        let f = form(r.request)
        let name = (f["name"] ?? "").trimmingCharacters(in: .whitespaces)
        let given = (f["issuer"] ?? "").trimmingCharacters(in: .whitespaces)
        let issuer = given.isEmpty && name == "apple" ? IdentityProvider.appleIssuer : given
        let ids = (f["clientIDs"] ?? "").split(whereSeparator: { $0 == "\n" || $0 == "," || $0 == "\r" || $0 == " " })
            .map(String.init)
        do {
            let provider = try IdentityProvider(name: name, issuer: issuer, clientIDs: ids)
            try store.identities.saveProvider(provider, container: r.scope.container, secret: try Self.webSecret(f))
            try audit(r.session, r.scope, "add identity provider", "\(provider.name) \(provider.issuer)")
            return .redirect(to: r.scope.paths.signIn(done: "Users can sign in with \(provider.name)."))
        } catch let error as StratusError where error.code == .badRequest {
            return try signInPage(r, error: error.reason)
        }
    }

    /// The web sign-in's secret the form gives: a fixed one, Apple's key (all three fields), or none.
    private static func webSecret(_ f: [String: String]) throws(StratusError) -> WebClientSecret? {
        let field = { (name: String) in (f[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines) }
        let fixed = field("clientSecret"), apple = [field("appleTeamID"), field("appleKeyID"), field("applePrivateKey")]
        guard apple.contains(where: { !$0.isEmpty }) else { return fixed.isEmpty ? nil : .fixed(fixed) }
        guard fixed.isEmpty else { throw .badRequest("give a client secret or Apple's key, not both") }
        return .apple(try AppleSigningKey(teamID: apple[0], keyID: apple[1], privateKeyPEM: apple[2]))
    }

    func removeProvider(_ r: ConsoleRequest) throws -> HTTPResponse {
        let name = r.request.parameters["name"] ?? ""
        try store.identities.removeProvider(name, container: r.scope.container)
        try audit(r.session, r.scope, "remove identity provider", name)
        return .redirect(to: r.scope.paths.signIn(done: "Removed \(name.prefix(64)); its users keep their accounts."))
    }

    func saveSignUpWays(_ r: ConsoleRequest) throws -> HTTPResponse {
        let chosen = Set(HTTPRequest.formItems(String(decoding: r.request.body, as: UTF8.self))
            .filter { $0.name == "way" }.compactMap { SignUpWay(rawValue: $0.value) })
        try store.accounts.setSignUpWays(chosen, container: r.scope.container)
        try audit(r.session, r.scope, "choose sign-up ways", SignUpWay.spelled(chosen))
        return .redirect(to: r.scope.paths.signIn(done: "New accounts: \(SignUpWay.spelled(chosen))."))
    }
}
