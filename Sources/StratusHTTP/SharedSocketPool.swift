import FlyingSocks
import Synchronization

/// One event loop for every server in the process: on Linux `EpollSocketPool` (a thread of its own in
/// `epoll_wait`), elsewhere FlyingSocks' pool. A pool per server would park a thread per server (the test suite
/// runs dozens).
enum SharedSocketPool {
    private static let pool = Mutex<(any AsyncSocketPool)?>(nil)

    static func get() async throws -> any AsyncSocketPool {
        if let p = pool.withLock({ $0 }) { return p }
        #if os(Linux)
        let made = try pool.withLock { current -> any AsyncSocketPool in
            if let current { return current }
            let fresh = try EpollSocketPool()
            current = fresh
            return fresh
        }
        try await made.prepare()
        return made
        #else
        let fresh = SocketPool<Poll>.make(maxEvents: 256)
        try await fresh.prepare()
        let chosen: any AsyncSocketPool = pool.withLock { current in
            if let current { return current }
            current = fresh
            Task.detached { try? await fresh.run() }
            return fresh
        }
        return chosen
        #endif
    }
}
