import Synchronization

/// When an environment's notification log is next tended (`NotificationStore.tendLog`), after writes of this
/// process that appended to it: its retention at most once a minute, and its whole budget as soon as this
/// process's estimate of the log passes it. The estimate is the size last measured plus what this process
/// appended since; each expiry measures again, so other nodes' appends are counted within the minute.
final class NotificationLogUpkeep: Sendable {
    private struct State {
        var estimate: Int64?
        var lastExpiry: Int64 = 0
        /// Whether this process appended since the last tend: a log nobody here writes to is left to those who do.
        var appended = false
        var running = false
    }
    private let state = Mutex(State())

    /// A committed write appended `bytes` to the log.
    func appended(_ bytes: Int64) {
        state.withLock { s in
            s.estimate = s.estimate.map { $0 + bytes }
            s.appended = true
        }
    }

    /// What is due now, claimed for the caller (nil: nothing, or another thread is at it): whether to expire, and
    /// whether to measure and hold the log to its budget.
    func claim(now: Int64, retention: Int64, budget: Int64) -> (expire: Bool, measure: Bool)? {
        state.withLock { s in
            guard !s.running, s.appended else { return nil }
            let expire = now - s.lastExpiry > min(60_000, retention)
            let measure = expire || (s.estimate.map { $0 > budget } ?? true)
            guard expire || measure else { return nil }
            s.running = true
            s.appended = false
            if expire { s.lastExpiry = now }
            return (expire, measure)
        }
    }

    /// The tend is over; `measured` is the log's size it found (nil: it did not get that far).
    func finish(measured: Int64?) {
        state.withLock { s in
            s.running = false
            if let measured { s.estimate = measured }
        }
    }
}
