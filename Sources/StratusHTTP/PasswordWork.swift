import Foundation
import Synchronization

/// Password hashing (PBKDF2, 210,000 rounds: a tenth of a second of a core) one at a time per server, for every
/// sign-in, sign-up and console login: a crowd of them queues here instead of taking every blocking thread and
/// both cores, so it slows only itself and other users' requests keep their latency. Past `maxWaiting` queued,
/// a caller is told at once that the server is busy.
///
/// The hashing runs on threads of its own (`threads`), not `BlockingWork.shared`: connections run on those (see
/// `BlockingWork`), and a tenth of a second of hashing there would hold one of the few threads every request needs.
public final class PasswordWork: Sendable {
    /// Where every server's hashing runs: a thread per core (each server still hashes one at a time).
    public static let threads = BlockingWork(threads: max(2, ProcessInfo.processInfo.activeProcessorCount), extra: 0,
                                             name: "stratus-passwords", runsInPlace: false)

    public struct Busy: Error {}

    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    let concurrency, maxWaiting: Int

    private enum Turn { case now, wait, busy }

    public init(concurrency: Int = 1, maxWaiting: Int = 64) {
        self.concurrency = concurrency
        self.maxWaiting = maxWaiting
    }

    /// Runs `body` (which hashes or verifies a password) on `threads` once a turn is free; `Busy` when too many wait.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let turn = state.withLock { s -> Turn in
            if s.running < concurrency { s.running += 1; return .now }
            return s.waiting.count < maxWaiting ? .wait : .busy
        }
        switch turn {
        case .busy: throw Busy()
        case .wait:
            // Handed the turn directly by the caller that finishes (see `finish`).
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    if s.running < concurrency { s.running += 1; return true }
                    s.waiting.append(c)
                    return false
                }
                if now { c.resume() }
            }
        case .now: break
        }
        defer { finish() }
        return try await Self.threads.run(body)
    }

    private func finish() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty { s.running -= 1; return nil }
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}
