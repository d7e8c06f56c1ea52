import Foundation
import StratusPostgres
import Synchronization

/// Tells every server on one PostgreSQL database to drop what it caches (credentials, faults) when one of them
/// changes it, through `NOTIFY stratus_invalidate`. Each server's caches also expire within a second on their
/// own, so a notification lost to a dropped connection costs at most that second; after a reconnect everything
/// cached is dropped anyway. A SQLite store is one process and publishes nothing.
final class CacheInvalidation: Sendable {
    static let channel = "stratus_invalidate"
    private let state = Mutex<(pool: PostgresPool?, listener: PostgresListener?)>((nil, nil))

    /// Starts listening; `drop` gets what to drop ("credentials", "faults"), or "all" after a reconnect.
    func start(pool: PostgresPool, drop: @escaping @Sendable (String) -> Void) {
        let listener = PostgresListener(url: pool.url, channels: [Self.channel], onReconnect: { drop("all") }) { _, what in drop(what) }
        state.withLock { $0 = (pool, listener) }
        listener.start()
    }

    /// Tells the other servers (and this one) that `what` changed. Best effort: the caches' lifetime is the bound.
    func publish(_ what: String) {
        guard let pool = state.withLock({ $0.pool }) else { return }
        _ = try? pool.withConnection { try $0.execute("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(what)]) }
    }

    func stop() {
        let listener = state.withLock { s -> PostgresListener? in defer { s = (nil, nil) }; return s.listener }
        listener?.stop()
    }
}
