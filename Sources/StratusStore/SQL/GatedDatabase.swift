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
/// lookup's time on those threads went to waiting in dispatch's slow path). Here a read claims the first idle one
/// of `readers` connections with one compare-and-swap (the first ones are the warm ones: their pages and prepared
/// statements), and only that read uses it, so GRDB's own queue for it is never contended. When all are busy a
/// read goes to the pool's readers as before. The count of operations inside is an atomic too: a lock here was
/// what the blocking threads met in next.
final class GatedDatabase<Base: DatabaseWriter>: Sendable {
    let base: Base
    /// Operations inside, plus `closedFlag` once closing has begun.
    private let gate = Atomic<Int>(0)
    private static var closedFlag: Int { 1 << 40 }
    private let slots: [ReaderSlot]
    /// Opens one more read-only connection to the same file.
    private let openReader: (@Sendable () throws -> DatabaseQueue)?

    init(_ base: Base, readers: Int = 0, openReader: (@Sendable () throws -> DatabaseQueue)? = nil) {
        self.base = base
        self.openReader = openReader
        slots = openReader == nil ? [] : (0..<readers).map { _ in ReaderSlot() }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try enter()
        defer { leave() }
        guard let slot = slots.first(where: { $0.claim() }) else {
            // A single connection (the control database, the logs) reads in place through the same prepared BEGIN
            // and COMMIT: GRDB's `read` on a queue also turns `query_only` on and off around it, four statements
            // more for a console request's session or an API token's one-row lookup.
            if let queue = base as? DatabaseQueue {
                return try queue.inDatabase { db in try Self.readTransaction(db, body) }
            }
            return try base.read(body)
        }
        defer { slot.release() }
        if slot.connection == nil { slot.connection = try openReader!() }
        return try slot.connection!.inDatabase { db in try Self.readTransaction(db, body) }
    }

    /// `read` with no transaction around `body`, for a body of one statement (SQLite's autocommit gives one
    /// statement one snapshot). On a pool's own readers when one is idle, else in place on the single connection.
    func readStatement<T>(_ body: (Database) throws -> T) throws -> T {
        try enter()
        defer { leave() }
        if let slot = slots.first(where: { $0.claim() }) {
            defer { slot.release() }
            if slot.connection == nil { slot.connection = try openReader!() }
            return try slot.connection!.inDatabase(body)
        }
        if let queue = base as? DatabaseQueue { return try queue.inDatabase(body) }
        return try base.read(body)
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
        gate.bitwiseOr(Self.closedFlag, ordering: .sequentiallyConsistent)
        let deadline = ContinuousClock.now + timeout
        while gate.load(ordering: .sequentiallyConsistent) & (Self.closedFlag - 1) > 0 && ContinuousClock.now < deadline { usleep(2_000) }
        for slot in slots where slot.claim() { try? slot.connection?.close() }
        try base.close()
    }

    private func enter() throws {
        let now = gate.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        if now & Self.closedFlag != 0 {
            leave()
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database is closed")
        }
    }

    private func leave() { gate.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
}

extension GatedDatabase where Base == DatabasePool {
    /// Lets every connection give back its page cache: GRDB's for the pool, and each idle one of our own.
    func releaseMemory() {
        guard (try? enter()) != nil else { return }
        defer { leave() }
        for slot in slots where slot.claim() {
            slot.connection?.releaseMemory()
            slot.release()
        }
        base.releaseMemory()
    }
}
