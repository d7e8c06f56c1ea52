import Foundation
import Synchronization

/// Token buckets per key (a user, a client address): each holds up to `burst` requests and refills at `perSecond`.
/// A request that finds its bucket empty is told how many seconds until one token is back. Buckets that have
/// refilled completely are forgotten, so memory follows the keys active in the last few seconds.
public final class RateLimiter: Sendable {
    public let perSecond, burst: Double
    private struct Bucket { var tokens: Double; var at: ContinuousClock.Instant }
    private let buckets = Mutex<[String: Bucket]>([:])

    /// `perSecond` 0 turns the limiter off.
    public init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? max(1, perSecond * 2)
    }

    /// Takes one token for `key`: nil when the request may go ahead, else the seconds to wait.
    public func take(_ key: String) -> Int? {
        guard perSecond > 0 else { return nil }
        let now = ContinuousClock.now
        return buckets.withLock { b in
            if b.count > 50_000 { b = b.filter { now - $0.value.at < .seconds(burst / perSecond) } }
            // The bucket changed in place: one hash of the key under the lock, not one to read and one to write back
            // (every request takes this lock twice, and one user's connections all want the same bucket).
            return Self.take(from: &b[key, default: Bucket(tokens: burst, at: now)], now: now, burst: burst,
                             perSecond: perSecond)
        }
    }

    private static func take(from bucket: inout Bucket, now: ContinuousClock.Instant, burst: Double,
                             perSecond: Double) -> Int? {
        let elapsed = now - bucket.at
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perSecond)
        bucket.at = now
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return nil
        }
        return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
    }
}
