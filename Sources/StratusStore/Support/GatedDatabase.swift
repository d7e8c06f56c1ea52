import Foundation
import GRDB
import Synchronization

/// A database that closes only once no operation is inside it, and whose reads take read-only connections of
/// its own when it has them.
///
/// GRDB's `close()` must not race reads and writes: a read that had taken its connection before the close ran its
/// first statement on a closed handle and crashed the process. A server's stop can still find work inside the
/// store (a telemetry sample, a request past the drain timeout), so closing waits for it, and an operation that
/// arrives after the close fails with an error instead.
///
/// Reads: GRDB's `DatabasePool` hands a reader out through a semaphore, a concurrent dispatch queue's barrier and
/// a read-write lock, and four blocking threads asking for readers at once met in them (a quarter of a one-record
/// lookup's time on those threads went to waiting in dispatch's slow path). Here a read takes an idle connection
/// off a stack under the same lock that counts the operations inside, the one most recently put back first (its
/// pages and prepared statements are the warm ones), and only that read uses it, so GRDB's own queue for it is
/// never contended. When all `readerLimit` are busy a read goes to the pool's readers as before.
final class GatedDatabase<Base: DatabaseWriter>: Sendable {
    let base: Base
    private let state = Mutex(State())
    /// Opens one more read-only connection to the same file (nil: every read goes through `base`).
    private let openReader: (@Sendable () throws -> DatabaseQueue)?
    private let readerLimit: Int

    private struct State {
        var active = 0
        var closed = false
        /// Connections no read holds now, the most recently used last.
        var idle: [DatabaseQueue] = []
        /// Connections opened so far, held or idle.
        var opened = 0
    }

    /// Where a read runs.
    private enum Reader {
        case connection(DatabaseQueue)
        case open
        case base
    }

    init(_ base: Base, readers: Int = 0, openReader: (@Sendable () throws -> DatabaseQueue)? = nil) {
        self.base = base
        self.openReader = openReader
        readerLimit = openReader == nil ? 0 : readers
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try state.withLock { s throws(DatabaseError) -> Reader in
            guard !s.closed else { throw Self.closedError }
            s.active += 1
            if let idle = s.idle.popLast() { return .connection(idle) }
            guard s.opened < readerLimit else { return .base }
            s.opened += 1
            return .open
        }
        let connection: DatabaseQueue
        switch reader {
        case .connection(let c): connection = c
        case .base:
            defer { leave() }
            return try base.read(body)
        case .open:
            do { connection = try openReader!() } catch {
                state.withLock { $0.opened -= 1; $0.active -= 1 }
                throw error
            }
        }
        // Put back before the operation counts as done, so a close that waits for none inside finds it idle.
        defer { state.withLock { $0.idle.append(connection); $0.active -= 1 } }
        return try connection.inDatabase { db in try Self.readTransaction(db, body) }
    }

    /// `body` in a read transaction whose BEGIN and COMMIT are prepared once per connection (GRDB's `read` compiles
    /// both again for every read).
    private static func readTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        let value: T
        do { value = try body(db) } catch {
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
        try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        return value
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
        for reader in state.withLock({ s in defer { s.idle = [] }; return s.idle }) { try? reader.close() }
        try base.close()
    }

    /// Lets every idle connection of our own give back its page cache (GRDB's `releaseMemory` does the pool's).
    private func releaseReaderMemory() {
        let idle = state.withLock { s -> [DatabaseQueue] in
            guard !s.closed else { return [] }
            defer { s.active += s.idle.count; s.idle = [] }
            return s.idle
        }
        for reader in idle { reader.releaseMemory() }
        state.withLock { $0.idle.append(contentsOf: idle); $0.active -= idle.count }
    }

    private static var closedError: DatabaseError { DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed") }

    private func enter() throws {
        let open = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.active += 1
            return true
        }
        guard open else { throw Self.closedError }
    }

    private func leave() { state.withLock { $0.active -= 1 } }
}

extension GatedDatabase where Base == DatabasePool {
    func releaseMemory() {
        releaseReaderMemory()
        guard (try? enter()) != nil else { return }
        defer { leave() }
        base.releaseMemory()
    }
}
