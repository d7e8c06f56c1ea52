#if os(Linux)
import CEpoll
import FlyingSocks
import Foundation
import Glibc
import Synchronization

/// The event loop the process's listening sockets wait on: one thread of its own parked in
/// `epoll_wait`, which resumes the waiting task itself. (A server's connections wait on its workers instead, see
/// `ConnectionWorker`.)
///
/// FlyingSocks' own pool is an actor: a ready socket went from a dispatch queue's thread (its `epoll_wait`) to the
/// actor, and from the actor to the connection's task — two hops for every read that had to wait.
final class EpollSocketPool: AsyncSocketPool {
    private let waits: EpollWaits
    private let started = Mutex(false)

    init() throws {
        waits = try EpollWaits(shards: 64, closesOnDeinit: false)
    }

    func prepare() async throws { start() }

    /// The loop runs on a thread of its own, started once; there is nothing to run in the caller's task.
    func run() async throws { start() }

    private func start() {
        guard started.withLock({ s in defer { s = true }; return !s }) else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "stratus-epoll"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try await waits.wait(socket.file.rawValue, reading: events.contains(.read), writing: events.contains(.write))
    }

    /// Suspends until `fd` is ready for what is asked, hangs up or fails (see `EpollWaits.wait`).
    func wait(_ fd: Int32, reading: Bool, writing: Bool) async throws {
        try await waits.wait(fd, reading: reading, writing: writing)
    }

    private func loop() {
        let capacity: Int32 = 256
        var fds = [Int32](repeating: 0, count: Int(capacity))
        var reports = [UInt32](repeating: 0, count: Int(capacity))
        var ready: [CheckedContinuation<Void, any Error>] = []
        while true {
            var error: Int32 = 0
            let n = cepoll_wait(waits.epoll, &fds, &reports, capacity, -1, &error)
            if n < 0 { continue }  // EINTR; epoll_wait fails otherwise only for a bad descriptor, which this one is not
            for i in 0..<Int(n) { waits.take(fds[i], reports[i], into: &ready) }
            for c in ready { c.resume() }
            ready.removeAll(keepingCapacity: true)
        }
    }
}
#endif
