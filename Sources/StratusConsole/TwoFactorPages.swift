import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// The administrator's second factor, under `/console/two-factor`: the second step of a password sign-in (a TOTP
/// code, or a recovery code once), and enrolling an authenticator app — its secret shown once, as a QR code, an
/// `otpauth://` URI and text, confirmed by a code of it, which gives ten single-use recovery codes.
struct TwoFactorPages: ConsolePageGroup {
    let console: Console

    static func register(_ router: inout Router, console c: Console) {
        addSignedIn(to: &router, console: c) { routes in
            routes.get(ConsolePaths.twoFactor, need: .secondStep) { g, req, s in try g.twoFactorPage(req, s) }
            routes.post(ConsolePaths.twoFactor, need: .secondStep) { g, req, s in try g.secondStep(req, s) }
            routes.post(ConsolePaths.twoFactor + "/totp", need: .enrolment) { g, req, s in try g.beginTOTP(req, s) }
            routes.post(ConsolePaths.twoFactor + "/totp/confirm", need: .enrolment) { g, req, s in
                try g.confirmTOTP(req, s)
            }
            routes.post(ConsolePaths.twoFactor + "/passkey", need: .secondStep) { g, req, s in
                try g.finishPasskey(req, s)
            }
        }
    }

    /// The second step while a sign-in waits for it; otherwise what the administrator has enrolled.
    func twoFactorPage(_ req: HTTPRequest, _ s: Session, error: String? = nil,
                       status: HTTPStatus = .ok) throws -> HTTPResponse {
        let passkeys = try store.admins.passkeys.count(of: s.admin)
        if s.secondStepPending {
            let totp = try store.admins.twoFactor.hasTOTP(s.admin)
            let passkey = passkeys > 0
                ? Self.passkeyButton(console, .secondStep, admin: s.admin, csrf: s.csrf, req) : nil
            var r = render("two-factor-step", SecondStepView(title: "Second step", action: ConsolePaths.twoFactor,
                                                             totp: totp, passkey: passkey?.button, error: error),
                           session: s, status: status)
            if let cookie = passkey?.cookie { r.headers["set-cookie"] = cookie }
            return r
        }
        let totp = try store.admins.twoFactor.hasTOTP(s.admin)
        let enrolled = totp || passkeys > 0
        let add = Self.passkeyButton(console, .add, admin: s.admin, csrf: s.csrf, req)
        var r = render("two-factor", StatusView(title: "Two-factor authentication", enrolled: enrolled, totp: totp,
                                                passkeys: passkeys,
                                                recoveryCodesLeft: enrolled
                                                    ? try store.admins.twoFactor.recoveryCodesLeft(s.admin) : 0,
                                                required: console.requireTwoFactor,
                                                beginAction: ConsolePaths.twoFactor + "/totp", passkey: add?.button,
                                                error: error), session: s, status: status)
        if let cookie = add?.cookie { r.headers["set-cookie"] = cookie }
        return r
    }

    struct SecondStepView: Encodable {
        let title, action: String
        let totp: Bool
        let passkey: PasskeyButtonView?
        let error: String?
    }
    struct StatusView: Encodable {
        let title: String
        let enrolled, totp: Bool
        let passkeys, recoveryCodesLeft: Int
        let required: Bool
        let beginAction: String
        let passkey: PasskeyButtonView?
        let error: String?
    }

    func secondStep(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        guard s.secondStepPending else { return .redirect(to: ConsolePaths.home) }
        let account = "admin-second-step:\(s.admin.id)", address = req.clientAddress
        if case .wait(let seconds) = console.throttle.check(account: account, address: address) {
            return try twoFactorPage(req, s, error: "Too many wrong codes. Wait \(seconds) seconds and try again.",
                                     status: .tooManyRequests)
        }
        let code = formValue(req, "code") ?? ""
        guard try store.admins.twoFactor.passSecondStep(s.admin, code: code, session: s.token) else {
            console.throttle.failed(account: account, address: address)
            return try twoFactorPage(req, s, error: "That code is not right, or was used already.",
                                     status: .unauthorized)
        }
        console.throttle.succeeded(account: account)
        return .redirect(to: ConsolePaths.home)
    }

    func beginTOTP(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        let secret = try store.admins.twoFactor.beginTOTP(s.admin)
        return enrolmentPage(s, secret: secret)
    }

    private func enrolmentPage(_ s: Session, secret: String, error: String? = nil,
                               status: HTTPStatus = .ok) -> HTTPResponse {
        let uri = Self.otpauthURI(secret: secret, account: s.admin.email)
        let qr = (try? QRCode(Array(uri.utf8)))?.svg(label: "QR code of the authenticator app's secret") ?? ""
        return render("two-factor-enrol", EnrolView(title: "Set up an authenticator app", secret: Self.grouped(secret),
                                                    uri: uri, qr: qr,
                                                    action: ConsolePaths.twoFactor + "/totp/confirm", error: error),
                      session: s, status: status)
    }

    struct EnrolView: Encodable { let title, secret, uri, qr, action: String; let error: String? }

    func confirmTOTP(_ req: HTTPRequest, _ s: Session) throws -> HTTPResponse {
        guard let secret = try store.admins.twoFactor.pendingTOTP(s.admin) else {
            return .redirect(to: ConsolePaths.twoFactor)
        }
        guard let codes = try store.admins.twoFactor.confirmTOTP(s.admin, code: formValue(req, "code") ?? "") else {
            return enrolmentPage(s, secret: secret, error: "That code is not the app's for this secret. "
                                 + "Check the device's clock, and give the code it shows now.", status: .badRequest)
        }
        try audit(s, nil, "enrol second factor", "TOTP")
        return render("two-factor-codes", CodesView(title: "Recovery codes", codes: codes), session: s)
    }

    struct CodesView: Encodable { let title: String; let codes: [String] }

    /// The URI authenticator apps read (Key Uri Format): issuer Stratus, the administrator's email as the account.
    static func otpauthURI(secret: String, account: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        let label = "Stratus:" + (account.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        return "otpauth://totp/\(label)?secret=\(secret)&issuer=Stratus&algorithm=SHA1&digits=6&period=30"
    }

    /// `ABCD EFGH …`, for typing it in.
    static func grouped(_ secret: String) -> String {
        stride(from: 0, to: secret.count, by: 4).map { i in
            String(secret.dropFirst(i).prefix(4))
        }.joined(separator: " ")
    }
}
