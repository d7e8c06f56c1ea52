import Foundation
import StratusHTTP
import StratusJSON
import StratusModel
import StratusStore

/// Passkeys on the sign-in pages (with `--public-url`, whose host is the relying party ID): sign in with one
/// (discoverable: the passkey names its account), create an account with one alone, or, on the account page after
/// proving the account (password or passkey), add one. `Public/passkey.js` asks for a ceremony's options
/// (`POST /auth/1/{c}/{e}/passkey/options?purpose=…`, which begins it: a random challenge kept server-side, bound
/// to the browser by a cookie, once), runs the browser's WebAuthn ceremony, and posts the answer as a form to
/// `…/passkey/finish`, so the session is handed over as a password sign-in hands it (`PasskeyCeremony` checks it).
extension SignInPages {
    static let passkeyCookie = "stratus_passkey"

    func registerPasskeyRoutes(_ router: inout Router) {
        let pages = self
        router.add(.post, "/auth/1/{container}/{environment}/passkey/options", bodyLimit: 1024) { req in
            try await pages.passkeyOptions(req)
        }
        router.add(.post, "/auth/1/{container}/{environment}/passkey/finish", bodyLimit: 64 * 1024) { req in
            try await pages.finishPasskey(req)
        }
    }

    func passkeyPath(_ page: PageContext, _ action: String, purpose: PasskeyChallenge.Purpose? = nil) -> String {
        var query = SignInPages.query(callback: page.callback, origin: page.openerOrigin)
        if let purpose { query += (query.isEmpty ? "?" : "&") + "purpose=" + purpose.rawValue }
        if action == "finish", let link = page.link { query += (query.isEmpty ? "?" : "&") + "link=" + link }
        return "/auth/1/\(page.container.rawValue)/\(page.environment.rawValue)/passkey/\(action)" + query
    }

    /// The page's passkey button: none without a relying party, or on a sign-up page that makes no passkey accounts.
    func passkeyButton(_ page: PageContext) -> AuthPages.PasskeyButton? {
        guard relyingParty != nil else { return nil }
        let (purpose, label): (PasskeyChallenge.Purpose, String)
        switch page.mode {
        case .signin: (purpose, label) = (.signIn, "Sign in with a passkey")
        case .signup:
            guard page.passkeySignUp else { return nil }
            (purpose, label) = (.createAccount, "Create an account with a passkey")
        case .account: (purpose, label) = (.account, "Use a passkey")
        }
        return AuthPages.PasskeyButton(kind: purpose.rawValue, label: label,
                                       optionsURL: passkeyPath(page, "options", purpose: purpose), optionsJSON: nil,
                                       finishURL: passkeyPath(page, "finish"))
    }

    /// A ceremony begun for this browser, and its options as the page's script reads them.
    private func beginCeremony(_ page: PageContext, _ purpose: PasskeyChallenge.Purpose, user: String?,
                               _ req: HTTPRequest, _ rp: PasskeyCeremony.RelyingParty) async throws
        -> (options: JSON, cookie: String) {
        let store = self.store
        let ceremony = PasskeyChallenge(challenge: Self.randomText(), binding: Self.randomText(),
                                        container: page.container,
                                        environment: page.environment, purpose: purpose, user: user,
                                        callback: page.callback, origin: page.openerOrigin, address: req.clientAddress,
                                        expiresAt: WallClock.nowMillis() + PasskeyChallenge.lifetime)
        try await blocking.run { try store.passkeys.begin(ceremony) }
        var options: [String: JSON] = ["challenge": .string(ceremony.challenge), "rpId": .string(rp.id)]
        if purpose == .createAccount || purpose == .add, let user {
            options["rpName"] = .string(page.container.rawValue)
            options["user"] = ["id": .string(IdentityKey.base64URLEncoded(Data(user.utf8))),
                               "name": .string(purpose == .add ? user : "passkey for \(page.container.rawValue)"),
                               "displayName": .string(page.container.rawValue)]
        }
        let cookie = "\(Self.passkeyCookie)=\(ceremony.binding); Path=/auth/1/\(page.container.rawValue)/; HttpOnly; "
            + "SameSite=Strict; Max-Age=\(PasskeyChallenge.lifetime / 1000)" + (req.scheme == "https" ? "; Secure" : "")
        return (.object(options), cookie)
    }

    /// The page context a passkey request names (its container, environment and destination), when they are real
    /// and trusted.
    private func passkeyPage(_ req: HTTPRequest) async -> PageContext? {
        let store = self.store
        guard let container = try? ContainerID(req.parameters["container"] ?? ""),
              let environment = ContainerEnvironment(rawValue: req.parameters["environment"] ?? ""),
              (try? await blocking.run { try store.containerExists(container) }) == true,
              await untrustedDestination(req, container, environment) == nil else { return nil }
        return PageContext(container: container, environment: environment, callback: req.query("callback"),
                           openerOrigin: req.query("origin"), mode: .signin)
    }

    func passkeyOptions(_ req: HTTPRequest) async throws -> HTTPResponse {
        guard let rp = relyingParty, let page = await passkeyPage(req), SameOrigin.allows(req),
              let purpose = PasskeyChallenge.Purpose(rawValue: req.query("purpose") ?? ""), purpose != .add else {
            return ErrorEnvelope.response(StratusError(.notFound, "no passkeys here"))
        }
        var user: String?
        if purpose == .createAccount {
            let store = self.store
            let ways = try await blocking.run { try store.accounts.signUpWays(container: page.container) }
            guard ways.contains(.passkey) else {
                return ErrorEnvelope.response(StratusError(.accessDenied,
                                                           "this app makes no accounts with a passkey alone"))
            }
            user = "_" + Self.hex(16)
        }
        do {
            let (options, cookie) = try await beginCeremony(page, purpose, user: user, req, rp)
            var r = HTTPResponse.json(Data(options.serialized.utf8))
            r.headers["set-cookie"] = cookie
            r.headers["cache-control"] = "no-store"
            return r
        } catch let e as StratusError {
            return ErrorEnvelope.response(e)
        }
    }

    /// The account page's "Add a passkey" for a user who just proved the account: its ceremony begun at once.
    func passkeyAddition(_ page: PageContext, _ user: ContainerUser,
                         _ req: HTTPRequest) async -> (button: AuthPages.PasskeyButton, cookie: String)? {
        guard let rp = relyingParty,
              let (options, cookie) = try? await beginCeremony(page, .add, user: user.userRecordName, req,
                                                               rp) else { return nil }
        return (AuthPages.PasskeyButton(kind: "add", label: "Add a passkey", optionsURL: nil,
                                        optionsJSON: options.serialized,
                                        finishURL: passkeyPath(page, "finish")), cookie)
    }

    static func hex(_ bytes: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
    }
}
