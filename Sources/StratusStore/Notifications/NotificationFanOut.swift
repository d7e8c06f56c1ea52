import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns the changes writes handed off (`notification_outbox`, see `NotificationHandOff`) into notifications, after
/// their commits, for every environment of a store: one thread, one turn at a time, each turn one transaction of
/// bounded work (`NotificationStore.fanOutTurn`). An environment with more work goes to the back of the queue, so
/// a user whose writes fire ten thousand subscriptions holds the writer for one turn at a time, between everyone
/// else's writes, and delays only their own notifications and those queued behind them; other environments' turns
/// come between theirs.
///
/// Every recipient's notifications keep their order: turns run one at a time (on PostgreSQL, the outbox's rows are
/// locked, so another node's fan-out takes the next ones only after this one commits), changes are read in the order
/// of their rows, and a database's rows are numbered in the order its writes commit (they draw the number holding
/// the database's counter). Nothing is lost: a change leaves the outbox in the transaction that writes its
/// notifications. Every few seconds the open environments' outboxes are looked at too, for what another node or a
/// crash left there.
final class NotificationFanOut: Sendable {
    private struct State {
        var queue: [NotificationStore] = []
        var queued: Set<ObjectIdentifier> = []
        var started = false
        var stopped = false
    }
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let work = BackgroundWork("notification fan-out")
    /// The environments whose outboxes the sweep looks at.
    private let open = Mutex<@Sendable () -> [NotificationStore]>({ [] })
    /// How long the thread waits for work before it sweeps.
    static let sweepInterval: Double = 2
    /// The fan-out thread's niceness.
    static let niceness: Int32 = 10
    /// glibc's `gettid` (outside the module Swift imports; looked up by name): Linux sets a niceness per thread.
    private static let threadID: (@convention(c) () -> Int32)? = dlsym(nil, "gettid").map { unsafeBitCast($0,
            to: (@convention(c) () -> Int32).self) }

    /// Where the sweep finds the environments to look at (a store's open ones).
    func sweeping(_ environments: @escaping @Sendable () -> [NotificationStore]) { open.withLock { $0 = environments } }

    /// Queues `store`'s outbox for a turn (once, however many writes ask), starting the thread on first use.
    func schedule(_ store: NotificationStore) {
        let (added, start) = state.withLock { s -> (Bool, Bool) in
            guard !s.stopped else { return (false, false) }
            let start = !s.started
            s.started = true
            guard s.queued.insert(ObjectIdentifier(store)).inserted else { return (false, start) }
            s.queue.append(store)
            return (true, start)
        }
        if start { work.once { [self] in run() } }
        if added { wake.signal() }
    }

    private func run() {
        // Below the requests' threads: a flood of notifications to make yields the processors to everyone's requests,
        // and takes what they leave (its turns with the writer stay short, so a waiting write is not held long).
        if let tid = Self.threadID?() { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid),
                                                        Self.niceness) }
        while true {
            let next = state.withLock { s -> (store: NotificationStore?, stopped: Bool) in
                guard !s.stopped else { return (nil, true) }
                guard !s.queue.isEmpty else { return (nil, false) }
                let n = s.queue.removeFirst()
                s.queued.remove(ObjectIdentifier(n))
                return (n, false)
            }
            if next.stopped { return }
            guard let store = next.store else {
                if wake.wait(timeout: .now() + Self.sweepInterval) == .timedOut {
                    for n in open.withLock({ $0 })() where n.hasHandedOffChanges() { schedule(n) }
                }
                continue
            }
            if store.fanOutTurn() { schedule(store) }
        }
    }

    /// Ends the thread after the turn in progress; what is left in the outboxes waits for the next start.
    func stop() {
        let started = state.withLock { s in
            s.stopped = true
            s.queue.removeAll()
            s.queued.removeAll()
            return s.started
        }
        guard started else { return }
        wake.signal()
        work.stopThread()
    }
}
