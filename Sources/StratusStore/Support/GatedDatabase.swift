import Foundation
import GRDB
import Synchronization

/// A database that closes only once no operation is inside it.
///
/// GRDB's `close()` must not race reads and writes: a read that had taken its connection before the close ran its
/// first statement on a closed handle and crashed the process. A server's stop can still find work inside the
/// store (a telemetry sample, a request past the drain timeout), so closing waits for it, and an operation that
/// arrives after the close fails with an error instead.
final class GatedDatabase<Base: DatabaseWriter>: Sendable {
    let base: Base
    private let state = Mutex(State())
    private struct State {
        var active = 0
        var closed = false
    }

    init(_ base: Base) { self.base = base }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try enter()
        defer { leave() }
        return try base.read(body)
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try enter()
        defer { leave() }
        return try base.write(body)
    }

    func writeWithoutTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try enter()
        defer { leave() }
        return try base.writeWithoutTransaction(body)
    }

    /// Refuses new operations, waits up to `timeout` for those inside to leave, then closes.
    func close(timeout: Duration = .seconds(30)) throws {
        state.withLock { $0.closed = true }
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.active }) > 0 && ContinuousClock.now < deadline { usleep(2_000) }
        try base.close()
    }

    private func enter() throws {
        let open = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.active += 1
            return true
        }
        guard open else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed") }
    }

    private func leave() { state.withLock { $0.active -= 1 } }
}

extension GatedDatabase where Base == DatabasePool {
    func releaseMemory() { base.releaseMemory() }
}
