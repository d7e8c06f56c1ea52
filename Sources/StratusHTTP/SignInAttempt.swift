/// What one sign-in attempt came to (see `SignInThrottle.attempt`).
public enum SignInAttempt<Value: Sendable>: Sendable {
    /// The credentials were good: what `verify` made of them (a session, a user).
    case succeeded(Value)
    /// The account or address is held back for this long; nothing was checked.
    case wait(seconds: Int)
    /// Too many password checks wait already; nothing was checked.
    case busy
    /// `verify` refused (or failed); counted against the account and address when the throttle's rule says so.
    case refused(any Error)
}

extension SignInThrottle {
    /// The one sign-in sequence every form uses (console login, a container's sign-in page, a share page): ask the
    /// throttle, check the password with one of `passwords`' turns, then record the outcome — a
    /// success clears the account's failures, a refusal that `countsAsFailure` adds one. `account` nil (the
    /// Development test user) has no password to guess and skips the throttle.
    /// `device`: the token of a device cookie the caller found valid for `account` (see `SignInThrottle`).
    public func attempt<Value: Sendable>(account: String?, address: String, device: String? = nil,
                                         countsAsFailure: @Sendable (any Error) -> Bool = { _ in true },
                                         _ verify: @escaping @Sendable () throws -> Value) async -> SignInAttempt<Value> {
        if let account, case .wait(let seconds) = check(account: account, address: address,
                                                        device: device) { return .wait(seconds: seconds) }
        do {
            let value = try await passwords.run(verify)
            if let account { succeeded(account: account, device: device) }
            return .succeeded(value)
        } catch is PasswordWork.Busy {
            return .busy
        } catch {
            if let account, countsAsFailure(error) { failed(account: account, address: address, device: device) }
            return .refused(error)
        }
    }
}
