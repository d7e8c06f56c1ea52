import FlyingSocks
import Synchronization

/// One epoll event loop for every server in the process. Each pool parks a thread in `epoll_wait`; with a
/// pool per server, a process running several (the test suite) can park every worker thread it has.
enum SharedSocketPool {
    private static let pool = Mutex<(any AsyncSocketPool)?>(nil)

    static func get() async throws -> any AsyncSocketPool {
        if let p = pool.withLock({ $0 }) { return p }
        let fresh = SocketPool<Poll>.make(maxEvents: 256)
        try await fresh.prepare()
        let chosen: any AsyncSocketPool = pool.withLock { current in
            if let current { return current }
            current = fresh
            Task.detached { try? await fresh.run() }
            return fresh
        }
        return chosen
    }
}
