import Synchronization

/// The request body bytes the server holds in memory at once, across every connection (`HTTPServerConfig
/// .maxBufferedBodyBytes`): each body is reserved before it is read and given back when its request is answered,
/// so a crowd of large uploads gets 503 and a time to retry instead of the server's memory.
final class BodyBudget: Sendable {
    let limit: Int
    private let used = Mutex(0)

    init(limit: Int) { self.limit = limit }

    /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
    func reserve(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        return used.withLock { u in
            guard u + bytes <= limit else { return false }
            u += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used.withLock { $0 -= bytes }
    }

    var inUse: Int { used.withLock { $0 } }
}
