import StratusModel
import Synchronization

/// The notification listeners open now (SSE streams and waiting web courier polls), counted per user and in all:
/// each holds a connection and wakes with its user's commits, so one user may hold a few (a device or tab each)
/// and the server a bounded number. Past either, CloudKit's THROTTLED with a time to retry.
public final class NotificationListeners: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Listeners one user may have open in one container environment (`serve --max-listeners-per-user`).
        public var perUser: Int
        /// Listeners of everyone together (`serve --max-listeners`).
        public var total: Int

        public init(perUser: Int = 16, total: Int = 10_000) {
            self.perUser = perUser
            self.total = total
        }
    }

    /// One admitted listener: its place is given back when the slot is released (or dropped).
    public final class Slot: Sendable {
        private let release: @Sendable () -> Void
        init(_ release: @escaping @Sendable () -> Void) { self.release = release }
        deinit { release() }
    }

    public let limits: Limits
    private let open = Mutex<(byKey: [String: Int], total: Int)>(([:], 0))

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// How many are open now.
    public var count: Int { open.withLock { $0.total } }

    /// A place for one more listener of `key` (a user of a container environment), or THROTTLED.
    func admit(_ key: String) throws(StratusError) -> Slot {
        let admitted = open.withLock { o -> Bool in
            guard o.total < limits.total, o.byKey[key, default: 0] < limits.perUser else { return false }
            o.total += 1
            o.byKey[key, default: 0] += 1
            return true
        }
        guard admitted else {
            throw StratusError(.throttled,
                               "too many notification listeners are open (at most \(limits.perUser) per user): close one, or retry later", retryAfter: 5)
        }
        return Slot { [self] in
            open.withLock { o in
                o.total -= 1
                let n = o.byKey[key, default: 1] - 1
                o.byKey[key] = n == 0 ? nil : n
            }
        }
    }
}
