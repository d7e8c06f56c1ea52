import Foundation
import StratusAPI
import StratusHTTP
import StratusJSON
import StratusModel
import StratusStore

/// Administrators' passkeys (with `--public-url`, whose host is the relying party ID): added on the two-factor page,
/// then the second step after a password, or the whole sign-in from the login page (the passkey verifies its
/// user). Each page that offers one begins its ceremony as it is drawn (a challenge kept server-side, bound to the
/// browser by a cookie, once), and `Public/passkey.js` posts the browser's answer to a finish route.
extension TwoFactorPages {
    static let passkeyCookie = "stratus_admin_passkey"

    /// A passkey button for `purpose`, its ceremony begun for this browser; nil without a relying party, or past
    /// the ceremonies' budget (the page then offers none).
    static func passkeyButton(_ console: Console, _ purpose: AdminPasskeyChallenge.Purpose, admin: Admin?,
                              csrf: String?, _ req: HTTPRequest) -> (button: PasskeyButtonView, cookie: String)? {
        guard let rp = console.relyingParty else { return nil }
        let ceremony = AdminPasskeyChallenge(challenge: randomText(), binding: randomText(), admin: admin?.id,
                                             purpose: purpose, address: req.clientAddress,
                                             expiresAt: WallClock.nowMillis() + AdminPasskeyChallenge.lifetime)
        guard (try? console.store.admins.passkeys.begin(ceremony)) != nil else { return nil }
        var options: [String: JSON] = ["challenge": .string(ceremony.challenge), "rpId": .string(rp.id)]
        if purpose == .add, let admin {
            options["rpName"] = "Stratus console"
            options["user"] = ["id": .string(IdentityKey.base64URLEncoded(Data("admin-\(admin.id)".utf8))),
                               "name": .string(admin.email), "displayName": .string(admin.email)]
        }
        let label = switch purpose {
        case .add: "Add a passkey"
        case .secondStep: "Use a passkey"
        case .signIn: "Sign in with a passkey"
        }
        let finish = purpose == .signIn ? ConsolePaths.login + "/passkey" : ConsolePaths.twoFactor + "/passkey"
        let cookie = "\(passkeyCookie)=\(ceremony.binding); Path=/console; HttpOnly; SameSite=Strict; "
            + "Max-Age=\(AdminPasskeyChallenge.lifetime / 1000)" + (req.scheme == "https" ? "; Secure" : "")
        return (PasskeyButtonView(kind: purpose.rawValue, label: label, optionsJSON: JSON.object(options).serialized,
                                  finishURL: finish, csrf: csrf), cookie)
    }

    /// `{{#passkey}}` of the console's pages.
    struct PasskeyButtonView: Encodable { let kind, label, optionsJSON, finishURL: String; let csrf: String? }

    static func randomText() -> String {
        var rng = SystemRandomNumberGenerator()
        return IdentityKey.base64URLEncoded(Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }))
    }

    /// The ceremony an answer names, taken once from this browser, for `purpose`; AUTHENTICATION_FAILED otherwise.
    static func ceremony(_ console: Console, _ fields: [String: String], _ req: HTTPRequest,
                         _ purposes: Set<AdminPasskeyChallenge.Purpose>) throws -> (AdminPasskeyChallenge, Data) {
        guard let rp = console.relyingParty else { throw StratusError(.notFound, "No passkeys here.") }
        let clientData = try field(fields, "clientDataJSON")
        let type = fields["kind"] == "create" ? "webauthn.create" : "webauthn.get"
        let challenge = try PasskeyCeremony.challenge(clientData, type: type, rp)
        guard let taken = try console.store.admins.passkeys.take(challenge: challenge,
                                                                 binding: req.cookie(passkeyCookie) ?? ""),
              purposes.contains(taken.purpose) else {
            throw StratusError(.authenticationFailed,
                               "this passkey ceremony was used already, has expired, or was begun in another browser")
        }
        return (taken, clientData)
    }

    /// A sign-in's passkey checked: its administrator, once the signature verifies and the counter moves on.
    static func verify(_ console: Console, _ fields: [String: String], clientData: Data) throws -> Admin {
        guard let rp = console.relyingParty,
              let stored = try console.store.admins.passkeys.credential(fields["id"] ?? "") else {
            throw StratusError(.authenticationFailed, "this passkey is not an administrator's here")
        }
        let count = try PasskeyCeremony.signIn(clientDataJSON: clientData,
                                               authenticatorData: try field(fields, "authenticatorData"),
                                               signature: try field(fields, "signature"), publicKey: stored.publicKey,
                                               storedCount: stored.signCount, rp)
        guard try console.store.admins.passkeys.used(fields["id"] ?? "", from: stored.signCount, to: count) else {
            throw StratusError(.authenticationFailed, "this passkey signed in elsewhere at the same moment")
        }
        return stored.admin
    }

    static func field(_ fields: [String: String], _ name: String) throws(StratusError) -> Data {
        guard let text = fields[name], let data = IdentityKey.base64URL(text), !data.isEmpty else {
            throw .badRequest("the passkey's answer has no \(name)")
        }
        return data
    }

    /// `POST /console/two-factor/passkey`: a passkey added (the first second factor gives recovery codes), or the
    /// second step passed with one of the administrator's own.
    func finishPasskey(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let fields = form(req)
        let account = "admin-second-step:\(s.admin.id)", address = req.clientAddress
        if case .wait(let seconds) = console.throttle.check(account: account, address: address) {
            return try twoFactorPage(req, s, error: "Too many failed attempts. Wait \(seconds) seconds.",
                                     status: .tooManyRequests)
        }
        do {
            let purposes: Set<AdminPasskeyChallenge.Purpose> = s.secondStepPending ? [.secondStep] : [.add]
            let (ceremony, clientData) = try Self.ceremony(console, fields, req, purposes)
            guard ceremony.admin == s.admin.id else {
                throw StratusError(.authenticationFailed, "this ceremony is another administrator's")
            }
            if ceremony.purpose == .secondStep {
                guard try Self.verify(console, fields, clientData: clientData).id == s.admin.id else {
                    throw StratusError(.authenticationFailed, "that passkey is another administrator's")
                }
                try store.admins.passkeys.passSecondStep(session: s.token)
                console.throttle.succeeded(account: account)
                return .redirect(to: ConsolePaths.home)
            }
            guard let rp = console.relyingParty else { throw StratusError(.notFound, "No passkeys here.") }
            let attestation = try Self.field(fields, "attestationObject")
            let credential = try PasskeyCeremony.register(attestationObject: attestation, rp)
            let first = try !store.admins.twoFactor.hasSecondFactor(s.admin)
            try store.admins.passkeys.add(credentialID: IdentityKey.base64URLEncoded(credential.id),
                                          publicKey: credential.publicKey, signCount: credential.signCount,
                                          admin: s.admin)
            try audit(s, nil, "enrol second factor", "passkey")
            guard first else { return .redirect(to: ConsolePaths.twoFactor) }
            return render("two-factor-codes", CodesView(title: "Recovery codes",
                                                        codes: try store.admins.twoFactor.makeRecoveryCodes(s.admin)),
                          session: s)
        } catch {
            guard let e = error as? StratusError, [.authenticationFailed, .badRequest, .exists].contains(e.code) else {
                throw error
            }
            console.throttle.failed(account: account, address: address)
            return try twoFactorPage(req, s, error: "The passkey did not work: \(e.reason).", status: .unauthorized)
        }
    }
}
