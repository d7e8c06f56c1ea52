import Synchronization

/// The request body bytes the server holds in memory at once, across every connection (`HTTPServerConfig
/// .maxBufferedBodyBytes`): each body is reserved before it is read and given back when its request is answered,
/// so a crowd of large uploads gets 503 and a time to retry instead of the server's memory. Each body is charged to
/// a credential (the one its route's admission named, or the client's address), and no credential holds more than
/// `perCredentialLimit`: one API token, key or address cannot take the budget from everyone else.
final class BodyBudget: Sendable {
    let limit, perCredentialLimit: Int
    private struct State {
        var used = 0
        var byCredential: [String: Int] = [:]
    }
    private let state = Mutex(State())

    init(limit: Int, perCredentialLimit: Int? = nil) {
        self.limit = limit
        self.perCredentialLimit = perCredentialLimit ?? limit / 4
    }

    /// Takes `bytes` from the budget for `credential`; false (and nothing taken) when they do not fit the whole or the
    /// credential's share.
    func reserve(_ bytes: Int, for credential: String) -> Bool {
        guard bytes > 0 else { return true }
        return state.withLock { s in
            let mine = s.byCredential[credential, default: 0]
            guard bytes <= limit - s.used, bytes <= perCredentialLimit - mine else { return false }
            s.used += bytes
            s.byCredential[credential] = mine + bytes
            return true
        }
    }

    func release(_ bytes: Int, for credential: String) {
        guard bytes > 0 else { return }
        state.withLock { s in
            s.used -= bytes
            let left = s.byCredential[credential, default: 0] - bytes
            s.byCredential[credential] = left > 0 ? left : nil
        }
    }

    var inUse: Int { state.withLock { $0.used } }
}
