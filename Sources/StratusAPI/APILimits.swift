import StratusHTTP
import StratusModel

/// Request-rate limits of the CloudKit API, per signed-in user and per client address, answered as the live
/// service does: 503 THROTTLED with `retryAfter` seconds (and a Retry-After header). The defaults are far above
/// what one client of this server does (the benchmarks' ~1,000 requests/s), so they stop floods, not apps.
public struct APILimits: Sendable {
    let perUser, perAddress: RateLimiter

    /// Requests per second (bursts of twice that); 0 turns a limit off.
    public init(perUserPerSecond: Double = 3_000, perAddressPerSecond: Double = 10_000) {
        perUser = RateLimiter(perSecond: perUserPerSecond)
        perAddress = RateLimiter(perSecond: perAddressPerSecond)
    }

    func admit(address: String) throws(StratusError) {
        if let wait = perAddress.take(address) {
            throw StratusError(.throttled, "too many requests from this address: retry after \(wait) s",
                               retryAfter: wait)
        }
    }

    func admit(user: String) throws(StratusError) {
        if let wait = perUser.take(user) {
            throw StratusError(.throttled, "too many requests for this user: retry after \(wait) s", retryAfter: wait)
        }
    }
}
