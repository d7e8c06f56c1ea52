import Foundation
import Synchronization

/// Slows down password guessing without letting an attacker lock a user out (OWASP's guidance): each account
/// gets a few free failures, then an exponentially growing delay (capped short) during which any attempt on
/// it, right or wrong, is answered "wait"; each client address gets a much higher ceiling of failures per
/// window, which stops one address spraying many accounts. A success clears its account's failures.
/// One type for every sign-in form (console admins and container users).
///
/// A browser that signed in to an account before carries a device cookie for it (OWASP's "device cookies"; the
/// caller checks it and passes its token as `device`): its attempts are judged by that device's own failures alone,
/// so that strangers failing on the account, or from the same address (everyone behind a proxy that forwards no
/// address shares one), never keep its owner out.
public final class SignInThrottle: Sendable {
    public struct Policy: Sendable {
        /// Failures an account may have before the first delay.
        public var freeFailures: Int
        /// The first delay; each further failure doubles it.
        public var baseDelay: Duration
        /// The longest delay: the wait the account's owner faces however long an attack goes on.
        public var maxDelay: Duration
        /// Failures one address may have per window, across all accounts.
        public var addressCeiling: Int
        public var addressWindow: Duration
        /// Accounts one client address may create per hour (a burst of as many), and the server per second (bursts
        /// of four times that): each costs a password hash, and a flood of them is a flood of work.
        public var signUpsPerAddressPerHour, signUpsPerSecond: Double

        public init(freeFailures: Int = 3, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
                    addressCeiling: Int = 100, addressWindow: Duration = .seconds(15 * 60),
                    signUpsPerAddressPerHour: Double = 20, signUpsPerSecond: Double = 2) {
            self.signUpsPerAddressPerHour = signUpsPerAddressPerHour
            self.signUpsPerSecond = signUpsPerSecond
            self.freeFailures = freeFailures
            self.baseDelay = baseDelay
            self.maxDelay = maxDelay
            self.addressCeiling = addressCeiling
            self.addressWindow = addressWindow
        }
    }

    /// Whether an attempt may go ahead, and if not for how long to wait.
    public enum Verdict: Equatable, Sendable {
        case proceed
        case wait(seconds: Int)
    }

    private struct AccountState { var failures: Int; var lockedUntil: ContinuousClock.Instant }
    private struct AddressState { var failures: Int; var since: ContinuousClock.Instant }
    private struct State {
        var accounts: [String: AccountState] = [:]
        var addresses: [String: AddressState] = [:]
        /// Failures of trusted devices, by their cookie: each is locked on its own.
        var devices: [String: AccountState] = [:]
    }

    public let policy: Policy
    private let state = Mutex(State())
    private let signUpsByAddress, signUps: RateLimiter
    /// Password hashing one at a time (see `PasswordWork`): every form this throttle guards hashes through it.
    public let passwords = PasswordWork()

    public init(policy: Policy = Policy()) {
        self.policy = policy
        signUpsByAddress = RateLimiter(perSecond: policy.signUpsPerAddressPerHour / 3600, burst: max(1,
                policy.signUpsPerAddressPerHour))
        signUps = RateLimiter(perSecond: policy.signUpsPerSecond, burst: max(1, policy.signUpsPerSecond * 4))
    }

    /// Asks before creating an account, before any password is hashed: the address's and the server's rate.
    public func checkSignUp(address: String) -> Verdict {
        if let wait = signUpsByAddress.take(address) { return .wait(seconds: wait) }
        if let wait = signUps.take("") { return .wait(seconds: wait) }
        return .proceed
    }

    /// Asks before checking a password. `account` is whatever names it (lowercased email), `address` the client's.
    public func check(account: String, address: String, device: String? = nil) -> Verdict {
        let now = ContinuousClock.now
        return state.withLock { s in
            if let device {
                if let d = s.devices[device], d.lockedUntil > now { return .wait(seconds: Self.seconds(d.lockedUntil - now)) }
                return .proceed
            }
            if let a = s.addresses[address] {
                if now - a.since > policy.addressWindow { s.addresses[address] = nil }
                else if a.failures >= policy.addressCeiling { return .wait(seconds: Self.seconds(a.since + policy.addressWindow - now)) }
            }
            if let acc = s.accounts[account], acc.lockedUntil > now { return .wait(seconds: Self.seconds(acc.lockedUntil - now)) }
            return .proceed
        }
    }

    public func failed(account: String, address: String, device: String? = nil) {
        let now = ContinuousClock.now
        state.withLock { s in
            if let device {
                if s.devices.count > 100_000 { s.devices = s.devices.filter { $0.value.lockedUntil > now } }
                var d = s.devices[device] ?? AccountState(failures: 0, lockedUntil: now)
                d.failures += 1
                let over = d.failures - policy.freeFailures
                if over >= 0 { d.lockedUntil = now + min(policy.maxDelay, policy.baseDelay * (1 << min(over, 20))) }
                s.devices[device] = d
                return
            }
            if s.accounts.count > 100_000 { s.accounts = s.accounts.filter { $0.value.lockedUntil > now } }
            if s.addresses.count > 100_000 { s.addresses = s.addresses.filter { now - $0.value.since <= policy.addressWindow } }
            var acc = s.accounts[account] ?? AccountState(failures: 0, lockedUntil: now)
            acc.failures += 1
            let over = acc.failures - policy.freeFailures
            if over >= 0 {
                let delay = min(policy.maxDelay, policy.baseDelay * (1 << min(over, 20)))
                acc.lockedUntil = now + delay
            }
            s.accounts[account] = acc
            var addr = s.addresses[address] ?? AddressState(failures: 0, since: now)
            if now - addr.since > policy.addressWindow { addr = AddressState(failures: 0, since: now) }
            addr.failures += 1
            s.addresses[address] = addr
        }
    }

    public func succeeded(account: String, device: String? = nil) {
        state.withLock { s in
            if let device { s.devices[device] = nil } else { s.accounts[account] = nil }
        }
    }

    private static func seconds(_ d: Duration) -> Int { max(1,
                                                            Int((Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18).rounded(.up))) }
}
