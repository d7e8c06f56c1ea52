import Crypto
import Foundation
import StratusModel

/// Administrators' second factor (`admins.twoFactor`): TOTP (RFC 6238: 30 s, six digits, a step either way, each
/// step's code used once) with ten single-use recovery codes made when it is enrolled, and a session's second step.
public struct AdminTwoFactor: Sendable {
    let control: any SQLDatabase

    /// How many recovery codes an enrolment gives.
    public static let recoveryCodeCount = 10

    /// Whether the admin has a second factor: a confirmed TOTP secret, or a passkey.
    public func hasSecondFactor(_ admin: Admin) throws(StratusError) -> Bool {
        try guarded {
            try control.read { s in
                try AdminTwoFactorRows.totp(admin.id, s)?.confirmed == true
                    || AdminPasskeyRows.count(of: admin.id, s) > 0
            }
        }
    }

    /// Whether the admin's second factor is an authenticator app (TOTP).
    public func hasTOTP(_ admin: Admin) throws(StratusError) -> Bool {
        try guarded { try control.read { s in try AdminTwoFactorRows.totp(admin.id, s)?.confirmed ?? false } }
    }

    /// Begins enrolling TOTP: a new random secret (base32), kept unconfirmed until a code of it is given back.
    /// EXISTS when the admin has one confirmed already (an owner resets it first).
    public func beginTOTP(_ admin: Admin) throws(StratusError) -> String {
        let secret = TOTP.base32(Data(Secrets.randomBytes(20)))
        try guarded {
            try control.write { s in
                if try AdminTwoFactorRows.totp(admin.id, s)?.confirmed == true {
                    throw StratusError(.exists, "a second factor is enrolled already")
                }
                try AdminTwoFactorRows.begin(admin.id, secret: secret, at: WallClock.nowMillis(), s)
            }
        }
        return secret
    }

    /// The secret being enrolled, if enrolment has begun and is not confirmed.
    public func pendingTOTP(_ admin: Admin) throws(StratusError) -> String? {
        try guarded {
            try control.read { s in
                try AdminTwoFactorRows.totp(admin.id, s).flatMap { $0.confirmed ? nil : $0.secret }
            }
        }
    }

    /// Confirms the enrolment with a code of its secret: the recovery codes, shown this once, or nil when the code
    /// is not the secret's now (or was used).
    public func confirmTOTP(_ admin: Admin, code: String, at now: Int64 = WallClock.nowMillis()) throws(StratusError)
        -> [String]? {
        try guarded {
            try control.write { s -> [String]? in
                guard let totp = try AdminTwoFactorRows.totp(admin.id, s), !totp.confirmed,
                      let secret = TOTP.base32Decoded(totp.secret),
                      let step = TOTP.matchingStep(code, secret: secret, around: TOTP.step(at: now)),
                      try AdminTwoFactorRows.take(admin.id, step: step, confirming: true, s) else { return nil }
                return try Self.newRecoveryCodes(admin.id, s)
            }
        }
    }

    /// The second step of a sign-in: a TOTP code not used before, or a recovery code (then spent). True ends the
    /// session's wait.
    public func passSecondStep(_ admin: Admin, code: String, session token: String,
                               at now: Int64 = WallClock.nowMillis()) throws(StratusError) -> Bool {
        try guarded {
            try control.write { s -> Bool in
                guard let totp = try AdminTwoFactorRows.totp(admin.id, s), totp.confirmed else { return false }
                let passed: Bool
                if let secret = TOTP.base32Decoded(totp.secret),
                   let step = TOTP.matchingStep(code, secret: secret, around: TOTP.step(at: now)) {
                    passed = try AdminTwoFactorRows.take(admin.id, step: step, confirming: false, s)
                } else {
                    passed = try AdminTwoFactorRows.useRecoveryCode(admin.id, hash: Self.recoveryHash(code), s)
                }
                if passed { try AdminTwoFactorRows.setSecondStep(false, session: Secrets.tokenHash(token), s) }
                return passed
            }
        }
    }

    /// New recovery codes, replacing any (shown once): when a passkey is the first second factor enrolled.
    public func makeRecoveryCodes(_ admin: Admin) throws(StratusError) -> [String] {
        try guarded { try control.write { s in try Self.newRecoveryCodes(admin.id, s) } }
    }

    private static func newRecoveryCodes(_ admin: Int64, _ s: any SQLSession) throws -> [String] {
        let codes = (0..<recoveryCodeCount).map { _ in recoveryCode() }
        try AdminTwoFactorRows.replaceRecoveryCodes(admin, hashes: codes.map(recoveryHash), s)
        return codes
    }

    public func recoveryCodesLeft(_ admin: Admin) throws(StratusError) -> Int {
        try guarded { try control.read { s in Int(try AdminTwoFactorRows.recoveryCodesLeft(admin.id, s)) } }
    }

    /// Forgets an administrator's second factors and ends their sessions (an owner's reset, or the command line's
    /// for the last owner); NOT_FOUND without such an administrator.
    public func resetTwoFactor(email: String) throws(StratusError) {
        try guarded {
            try control.write { s in
                guard let id = try AdminRows.find(email: email, s)?.admin.id else {
                    throw StratusError(.notFound, "no admin with this email")
                }
                try AdminTwoFactorRows.reset(id, s)
                try AdminPasskeyRows.deleteAll(of: id, s)
                try AdminSessions.endAll(admin: id, s)
            }
        }
    }

    /// `xxxxx-xxxxx` of lowercase letters and digits (50 bits).
    private static func recoveryCode() -> String {
        let alphabet = Array("abcdefghijkmnpqrstuvwxyz23456789")
        let bytes = Secrets.randomBytes(10)
        let chars = bytes.map { alphabet[Int($0) % alphabet.count] }
        return String(chars[0..<5]) + "-" + String(chars[5..<10])
    }

    private static func recoveryHash(_ code: String) -> String {
        Secrets.tokenHash(code.lowercased().filter { !$0.isWhitespace })
    }
}
