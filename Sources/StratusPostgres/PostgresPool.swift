import Foundation

/// A bounded pool of connections to one database. A caller waits at most `acquireTimeout` for a free connection
/// (then gets `.poolTimeout`, which the server answers as TRY_AGAIN_LATER); a connection found broken is dropped
/// and a new one made on the next request, so the pool heals by itself after PostgreSQL restarts.
public final class PostgresPool: @unchecked Sendable {
    public let url: String
    public let capacity: Int
    public let acquireTimeout: TimeInterval
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var closed = false

    public init(url: String, capacity: Int = 8, acquireTimeout: TimeInterval = 10) {
        self.url = url
        self.capacity = max(1, capacity)
        self.acquireTimeout = acquireTimeout
    }

    /// Lends a connection to `body`; it returns to the pool afterwards unless it broke.
    @discardableResult
    public func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let c = try acquire()
        defer { release(c) }
        return try body(c)
    }

    /// Runs `body` in a transaction, retried whole on serialization failures and deadlocks.
    public func transaction<T>(isolation: String = "READ COMMITTED",
                               _ body: (PostgresConnection) throws -> T) throws -> T {
        try withConnection { try $0.transaction(isolation: isolation, body) }
    }

    /// Closes idle connections and refuses new requests; connections lent out close when they come back.
    public func close() {
        condition.lock()
        closed = true
        let dropping = idle
        idle.removeAll()
        open -= dropping.count
        condition.broadcast()
        condition.unlock()
        _ = dropping  // PQfinish in each connection's deinit
    }

    private func acquire() throws -> PostgresConnection {
        let deadline = Date().addingTimeInterval(acquireTimeout)
        condition.lock()
        while true {
            if closed { condition.unlock(); throw PostgresError(.unavailable, "the PostgreSQL pool is closed") }
            if let c = idle.popLast() {
                if c.isHealthy { condition.unlock(); return c }
                open -= 1
                continue
            }
            if open < capacity {
                open += 1
                condition.unlock()
                do { return try PostgresConnection(url: url) } catch {
                    condition.lock()
                    open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw PostgresError(.poolTimeout, "no PostgreSQL connection was free within \(Int(acquireTimeout)) s")
            }
        }
    }

    private func release(_ c: PostgresConnection) {
        condition.lock()
        if c.isHealthy && !closed { idle.append(c) } else { open -= 1 }
        condition.signal()
        condition.unlock()
    }
}
