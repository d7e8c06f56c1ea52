import Foundation
import StratusPostgres
import Synchronization

/// Tells every server on one PostgreSQL database to drop what it caches (credentials, faults, an environment's
/// subscriptions and webhooks) when one of them changes it, and to wake its listeners when one of them commits
/// notifications, through `NOTIFY stratus_invalidate`. Each server's caches also expire within a second on their
/// own, so a notification lost to a dropped connection costs at most that second; after a reconnect everything
/// cached is dropped anyway. A SQLite store is one process and publishes nothing.
final class CacheInvalidation: Sendable {
    static let channel = "stratus_invalidate"
    private let state = Mutex<(pool: PostgresPool?, listener: PostgresListener?)>((nil, nil))
    /// The listening connection's thread, as all background work runs (`BackgroundWork.running` shows it).
    private let work = BackgroundWork("postgres listener")

    /// Starts listening; `drop` gets what to drop ("credentials", "faults"), or "all" after a reconnect.
    func start(pool: PostgresPool, drop: @escaping @Sendable (String) -> Void) {
        let listener = PostgresListener(url: pool.url, channels: [Self.channel],
                                        onReconnect: { drop("all") }) { _, what in drop(what) }
        state.withLock { $0 = (pool, listener) }
        work.once { listener.run() }
        listener.waitUntilListening()
    }

    /// Tells the other servers (and this one) that `what` changed. Best effort: the caches' lifetime is the bound.
    func publish(_ what: String) {
        guard let pool = state.withLock({ $0.pool }) else { return }
        _ = try? pool.withConnection { try $0.execute("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(what)]) }
    }

    /// Rings `keys` on every server's bell once the transaction of `s` commits (see `NotificationOutbox.finish`).
    /// A message holds as many keys as fit in PostgreSQL's 8,000-byte payload; NUL, which keys hold and
    /// PostgreSQL text cannot, travels as U+0001.
    static func ringEverywhere(_ keys: [String], _ s: any SQLSession) throws {
        var message = bellPrefix
        for key in keys {
            let k = key.replacingOccurrences(of: "\u{0}", with: "\u{1}")
            if message.utf8.count + k.utf8.count + 1 > 7_900, message != bellPrefix {
                try s.execute("SELECT pg_notify(?, ?)", channel, message)
                message = bellPrefix
            }
            message += (message == bellPrefix ? "" : "\n") + k
        }
        if message != bellPrefix { try s.execute("SELECT pg_notify(?, ?)", channel, message) }
    }

    static let bellPrefix = "bell\n"

    /// The bell keys of a message `ringEverywhere` sent; nil for any other message.
    static func bellKeys(_ message: String) -> [String]? {
        guard message.hasPrefix(bellPrefix) else { return nil }
        return message.dropFirst(bellPrefix.count).split(separator: "\n").map { $0.replacingOccurrences(of: "\u{1}",
                with: "\u{0}") }
    }

    func stop() {
        let listener = state.withLock { s -> PostgresListener? in defer { s = (nil, nil) }; return s.listener }
        listener?.stop()
        work.stopThread()
    }
}
