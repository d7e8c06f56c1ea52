import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Enforces a connection's deadline without a timer per read: one sleeping task per connection, woken when
/// the deadline passes (or every `recheck`, since the deadline can move earlier), half-closes the socket's read
/// side so the pending read returns and the connection answers 408. Moving the deadline is a store under a lock.
final class ConnectionWatchdog: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant
        var fired = false
        var finished = false
        /// Between requests: nothing is lost by closing now.
        var idle = true
    }
    private let state: Mutex<State>
    private let fd: Int32

    init(fd: Int32, deadline: ContinuousClock.Instant) {
        self.fd = fd
        state = Mutex(State(deadline: deadline))
    }

    func setDeadline(_ d: ContinuousClock.Instant) { state.withLock { $0.deadline = d } }
    func setIdle(_ idle: Bool) { state.withLock { $0.idle = idle } }

    /// Wakes the connection only if it is waiting for a next request.
    func fireIfIdle() {
        if state.withLock({ $0.idle }) { fire() }
    }
    var fired: Bool { state.withLock { $0.fired } }
    /// Closes the connection's socket under the same lock `fire` takes, so a deadline can never shut down a
    /// descriptor number the kernel has already given to another connection.
    func close(_ body: () -> Void) {
        state.withLock { s in
            s.finished = true
            body()
        }
    }

    /// Wakes the connection now, as if its deadline had passed (used when draining idle connections).
    func fire() {
        state.withLock { s in
            guard !s.finished, !s.fired else { return }
            s.fired = true
            shutdown(fd, Int32(SHUT_RD))
        }
    }

    /// The longest the watchdog sleeps before it looks at the deadline again.
    static let recheck: Duration = .seconds(1)

    func run() async {
        while !Task.isCancelled {
            let (deadline, done) = state.withLock { ($0.deadline, $0.finished) }
            if done { return }
            if ContinuousClock.now >= deadline {
                fire()
                return
            }
            // A deadline can move earlier while this sleeps (a request's timeout after an idle one, the idle timeout
            // after a handler's long one): sleeping at most `recheck` at a time notices it within that.
            try? await Task.sleep(until: min(deadline, ContinuousClock.now + Self.recheck), clock: .continuous)
        }
    }
}
