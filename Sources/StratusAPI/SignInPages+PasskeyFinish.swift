import Foundation
import StratusHTTP
import StratusJSON
import StratusModel
import StratusStore

/// The end of a passkey ceremony: the browser's answer, posted as a form by `Public/passkey.js` (every value
/// base64url). Its challenge names the ceremony, taken once from the browser that began it; then the answer is
/// checked (`PasskeyCeremony`) and the ceremony's purpose done: a session handed over, an account made, a passkey
/// added. A refusal is said on the page (or to the app that opened the window), counted in the sign-in throttle,
/// and changes nothing.
extension SignInPages {
    func finishPasskey(_ req: HTTPRequest) async throws -> HTTPResponse {
        guard let rp = relyingParty, SameOrigin.allows(req) else {
            return html.message("Refused", "This form can only be sent from its own page.", status: .forbidden)
        }
        let fields = Dictionary(HTTPRequest.formItems(String(decoding: req.body, as: UTF8.self)).map { ($0.name,
                $0.value) },
                                uniquingKeysWith: { a, _ in a })
        let account = "passkey:\(req.clientAddress)"
        if case .wait(let seconds) = throttle.check(account: account, address: req.clientAddress) {
            return html.message("Wait", "Too many failed sign-ins from here. Wait \(seconds) seconds and try again.",
                                status: .tooManyRequests)
        }
        let creates = fields["kind"] == "create"
        let store = self.store
        var ceremony: PasskeyChallenge?
        do {
            let clientData = try Self.field(fields, "clientDataJSON")
            let challenge = try PasskeyCeremony.challenge(clientData,
                                                          type: creates ? "webauthn.create" : "webauthn.get", rp)
            let binding = req.cookie(Self.passkeyCookie) ?? ""
            ceremony = try await blocking.run {
                try store.passkeys.take(challenge: challenge, binding: binding)
            }
            guard let ceremony, ceremony.container.rawValue == req.parameters["container"] else {
                throw StratusError.authenticationFailed(
                    "this passkey sign-in was used already, has expired, or was begun in another browser")
            }
            let response = try await creates ? registered(ceremony, fields, rp, req)
                : signedIn(ceremony, fields, rp, req)
            throttle.succeeded(account: account)
            return response
        } catch let e as StratusError where [.authenticationFailed, .exists, .badRequest].contains(e.code) {
            throttle.failed(account: account, address: req.clientAddress)
            let reason = "Signing in with a passkey did not work: \(e.reason)."
            guard let ceremony else { return html.message("Not signed in", reason, status: .badRequest) }
            return ended(reason, callback: ceremony.callback, openerOrigin: ceremony.origin)
        }
    }

    /// A registration: a new account with the passkey alone, or one more passkey for its proven user.
    private func registered(_ ceremony: PasskeyChallenge, _ fields: [String: String],
                            _ rp: PasskeyCeremony.RelyingParty,
                            _ req: HTTPRequest) async throws -> HTTPResponse {
        let attestation = try Self.field(fields, "attestationObject")
        let credential = try PasskeyCeremony.register(attestationObject: attestation, rp)
        let id = IdentityKey.base64URLEncoded(credential.id), store = self.store
        guard let user = ceremony.user else {
            throw StratusError.authenticationFailed("this ceremony registers no passkey")
        }
        switch ceremony.purpose {
        case .createAccount:
            let made = try await blocking.run {
                guard try store.accounts.signUpWays(container: ceremony.container).contains(.passkey) else {
                    throw StratusError.authenticationFailed("this app makes no accounts with a passkey alone")
                }
                return try store.passkeys.createAccount(user, credentialID: id, publicKey: credential.publicKey,
                                                        signCount: credential.signCount, container: ceremony.container)
            }
            return try await session(for: made.userRecordName, ceremony)
        case .add:
            try await blocking.run {
                try store.passkeys.add(credentialID: id, publicKey: credential.publicKey,
                                       signCount: credential.signCount,
                                       user: user, container: ceremony.container)
            }
            return html.message("Passkey added", "Your passkey was added: you can sign in with it from now on.")
        case .signIn, .account:
            throw StratusError.authenticationFailed("this ceremony registers no passkey")
        }
    }

    /// A sign-in: the passkey's signature and counter checked, then the session, or the account page.
    private func signedIn(_ ceremony: PasskeyChallenge, _ fields: [String: String], _ rp: PasskeyCeremony.RelyingParty,
                          _ req: HTTPRequest) async throws -> HTTPResponse {
        guard ceremony.purpose == .signIn || ceremony.purpose == .account else {
            throw StratusError.authenticationFailed("this ceremony signs no one in")
        }
        let id = fields["id"] ?? "", store = self.store, container = ceremony.container
        guard let stored = try await blocking.run({ try store.passkeys.credential(id, container: container) }) else {
            throw StratusError.authenticationFailed("this passkey is not registered here")
        }
        if let handle = fields["userHandle"], !handle.isEmpty, IdentityKey.base64URL(handle) != Data(stored.user.utf8) {
            throw StratusError.authenticationFailed("this passkey names another account")
        }
        let count = try PasskeyCeremony.signIn(clientDataJSON: try Self.field(fields, "clientDataJSON"),
                                               authenticatorData: try Self.field(fields, "authenticatorData"),
                                               signature: try Self.field(fields, "signature"),
                                                       publicKey: stored.publicKey,
                                               storedCount: stored.signCount, rp)
        guard try await blocking.run({ try store.passkeys.used(id, from: stored.signCount, to: count,
                                                               container: container) }) else {
            throw StratusError.authenticationFailed("this passkey signed in elsewhere at the same moment")
        }
        if ceremony.purpose == .account {
            guard let user = try await blocking.run({ try store.accounts.user(container: container,
                                                                              userRecordName: stored.user) }) else {
                throw StratusError.authenticationFailed("this passkey's account is gone")
            }
            let page = PageContext(container: container, environment: ceremony.environment, callback: ceremony.callback,
                                   openerOrigin: ceremony.origin, mode: .account)
            return await accountSaved(page, user, req)
        }
        // Proving the account that a provider's identity waits to be linked to.
        if let link = req.query("link") { try await completeLink(link, user: stored.user, req) }
        return try await session(for: stored.user, ceremony)
    }

    private func session(for user: String, _ ceremony: PasskeyChallenge) async throws -> HTTPResponse {
        let store = self.store
        let token = try await blocking.run {
            try store.accounts.createWebAuthToken(container: ceremony.container, environment: ceremony.environment,
                                                  userRecordName: user, lifetime: AccountStore.shortSession)
        }
        return deliver(token, callback: ceremony.callback, openerOrigin: ceremony.origin)
    }

    /// A base64url field of the answer; BAD_REQUEST when it is missing or not base64url.
    static func field(_ fields: [String: String], _ name: String) throws(StratusError) -> Data {
        guard let text = fields[name], let data = IdentityKey.base64URL(text), !data.isEmpty else {
            throw .badRequest("the passkey's answer has no \(name)")
        }
        return data
    }
}
