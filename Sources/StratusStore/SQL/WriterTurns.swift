import Foundation
import Synchronization

/// Hands a SQLite environment's one writer to those waiting for it in turn, by who asks: each principal (the user a
/// write is for, the notification fan-out, the server's own upkeep) waits in a line of its own, and the writer goes
/// to the lines in rotation, one write each. A user with three writes queued then holds the writer once before
/// another user's single write, not three times: the writer's time is shared by who needs it, not by who asks
/// most. Uncontended, a turn is two short lock holds. (PostgreSQL's writes run at once; they take no turns here.)
final class WriterTurns: Sendable {
    private struct State {
        var busy = false
        var lines: [String: [DispatchSemaphore]] = [:]
        /// Principals with someone waiting, in the order they are served next.
        var order: [String] = []
    }
    private let state = Mutex(State())

    /// Blocks until it is `principal`'s turn with the writer.
    func take(_ principal: String) {
        let wait: DispatchSemaphore? = state.withLock { s in
            guard s.busy else {
                s.busy = true
                return nil
            }
            let turn = DispatchSemaphore(value: 0)
            if s.lines[principal] == nil { s.order.append(principal) }
            s.lines[principal, default: []].append(turn)
            return turn
        }
        wait?.wait()
    }

    /// Ends a turn: the writer goes to the next line, whose principal then goes to the back if more of theirs wait.
    func give() {
        let next: DispatchSemaphore? = state.withLock { s in
            guard !s.order.isEmpty else {
                s.busy = false
                return nil
            }
            let principal = s.order.removeFirst()
            var line = s.lines[principal] ?? []
            let turn = line.removeFirst()
            if line.isEmpty { s.lines[principal] = nil } else {
                s.lines[principal] = line
                s.order.append(principal)
            }
            return turn
        }
        next?.signal()
    }

    /// `body` in `principal`'s turn.
    func run<T>(_ principal: String, _ body: () throws -> T) rethrows -> T {
        take(principal)
        defer { give() }
        return try body()
    }
}
