import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Enforces a connection's deadline without a timer per read: the server's one sweep (`ConnectionBudget.sweep`)
/// looks at every connection's deadline a few times a second and, when it has passed, half-closes the socket's read
/// side so the pending read returns and the connection answers 408 (or closes). While a response is being sent, the
/// write side is shut too, so that a client that stopped reading is let go. Moving the deadline is a store under a
/// lock.
final class ConnectionWatchdog: Sendable {
    private struct State {
        var deadline: ContinuousClock.Instant
        var fired = false
        var finished = false
        /// Between requests (or before the first byte): nothing is lost by closing now.
        var idle = true
        /// Since when it has been idle.
        var idleSince: ContinuousClock.Instant
        /// Writing an answer: a deadline passed here means the client stopped reading.
        var sending = false
    }
    private let state: Mutex<State>
    let fd: Int32
    /// The client's address (its host part), as the connection budget counts it.
    let address: String

    init(fd: Int32, address: String = "", deadline: ContinuousClock.Instant) {
        self.fd = fd
        self.address = address
        state = Mutex(State(deadline: deadline, idleSince: .now))
    }

    func setDeadline(_ d: ContinuousClock.Instant) { state.withLock { $0.deadline = d } }
    func setIdle(_ idle: Bool) {
        state.withLock { s in
            if idle && !s.idle { s.idleSince = .now }
            s.idle = idle
        }
    }
    func setSending(_ sending: Bool) { state.withLock { $0.sending = sending } }

    /// Wakes the connection only if it is waiting for a next request.
    func fireIfIdle() {
        if state.withLock({ $0.idle }) { fire() }
    }

    /// Whether the connection has waited for a request for at least `span`: it may be closed to make room.
    func isIdle(for span: Duration, now: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.idle && !$0.fired && !$0.finished && now - $0.idleSince >= span }
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
            shutdown(fd, Int32(s.sending ? SHUT_RDWR : SHUT_RD))
        }
    }

    /// Fires if the deadline has passed; returns whether the connection is done with (fired or finished).
    func check(_ now: ContinuousClock.Instant) -> Bool {
        let due = state.withLock { s -> Bool? in
            if s.finished || s.fired { return nil }
            return now >= s.deadline
        }
        guard let due else { return true }
        if due { fire() }
        return due
    }
}
