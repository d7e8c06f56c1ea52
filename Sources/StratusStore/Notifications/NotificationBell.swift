import StratusModel
import Synchronization

/// Wakes whoever waits on a key (a user's SSE streams and courier polls, the webhook deliverer) the moment a
/// write that concerns them commits, so delivery takes the commit's time rather than a poll interval's. The bell
/// carries no data: listeners read the log for what to send, and a lost ring costs at most the wait's timeout.
/// Each key counts its rings, so a listener that read the log before a ring and waits after it returns at once.
public final class NotificationBell: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var rings: [String: UInt64] = [:]
        var waiters: [String: [Waiter]] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    public init() {}

    /// The key every queued webhook delivery rings (the deliverer serves every environment).
    public static let webhooks = "\u{0}webhooks"

    /// The key of one user's notifications in one container environment (one bell serves a whole server).
    public static func key(_ container: ContainerID, _ environment: ContainerEnvironment, user: String) -> String {
        "\(container.rawValue)\u{0}\(environment.rawValue)\u{0}\(user)"
    }

    /// How many times `key` has rung: take it before reading the log, and pass it to `wait`.
    public func rings(_ key: String) -> UInt64 { state.withLock { $0.rings[key, default: 0] } }

    /// The key every ring rings too: the APNs deliverer, which pushes for any user, waits on it.
    public static let any = "\u{0}any"

    public func ring<S: Sequence>(_ keys: S) where S.Element == String {
        let woken = state.withLock { s -> [Waiter] in
            var woken: [Waiter] = []
            for k in keys {
                s.rings[k, default: 0] &+= 1
                if let w = s.waiters.removeValue(forKey: k) { woken += w }
            }
            s.rings[Self.any, default: 0] &+= 1
            if let w = s.waiters.removeValue(forKey: Self.any) { woken += w }
            return woken
        }
        for w in woken { w.continuation.resume() }
    }

    /// Whether the server is stopping: long polls answer now and streams end, so a stop is not held up by them.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Wakes every listener for good (the server is stopping); waits from now on return at once.
    public func close() {
        let woken = state.withLock { s -> [Waiter] in
            s.closed = true
            defer { s.waiters.removeAll() }
            return s.waiters.values.flatMap { $0 }
        }
        for w in woken { w.continuation.resume() }
    }

    /// Returns when `key` rings after `since` (at once if it already has), or after `timeout`.
    public func wait(_ key: String, since: UInt64, timeout: Duration) async {
        let id = state.withLock { s -> UInt64 in
            s.nextID &+= 1
            return s.nextID
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.closed || s.rings[key, default: 0] != since { return true }
                s.waiters[key, default: []].append(Waiter(id: id, continuation: c))
                return false
            }
            if now {
                c.resume()
                return
            }
            Task { [self] in
                try? await Task.sleep(for: timeout)
                self.expire(key, id)
            }
        }
    }

    private func expire(_ key: String, _ id: UInt64) {
        let waiter = state.withLock { s -> Waiter? in
            guard var list = s.waiters[key], let i = list.firstIndex(where: { $0.id == id }) else { return nil }
            let w = list.remove(at: i)
            s.waiters[key] = list.isEmpty ? nil : list
            return w
        }
        waiter?.continuation.resume()
    }
}
