import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices the moment a streaming client (an SSE listener, a console export) closes its end, for every streamed
/// response of the process, on one thread of its own parked in `poll(2)`.
///
/// Not through FlyingSocks' pool: a waiter there is keyed by descriptor number and its registration is dropped a
/// moment after the waiter wakes, so a connection closed in that moment leaves the pool watching a number the
/// next connection reuses — and that connection is never woken. Here a registration is removed, under the lock,
/// before its connection closes the socket, and the monitor only peeks (`MSG_PEEK`): even a stale wake on a reused
/// number takes no byte from anyone.
final class DisconnectMonitor: Sendable {
    static let shared = DisconnectMonitor()

    private struct State {
        var watched: [Int32: @Sendable () -> Void] = [:]
        var started = false
    }
    private let state = Mutex(State())
    /// Written to wake the poll when the set of watched sockets changes.
    private let wake: (read: Int32, write: Int32)

    private init() {
        var fds: [Int32] = [0, 0]
        _ = pipe(&fds)
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        wake = (fds[0], fds[1])
    }

    /// Calls `onClose` once `fd`'s peer closes (or the socket fails), unless `unwatch` comes first.
    func watch(_ fd: Int32, onClose: @escaping @Sendable () -> Void) {
        let start = state.withLock { s -> Bool in
            s.watched[fd] = onClose
            defer { s.started = true }
            return !s.started
        }
        if start {
            let t = Thread { [self] in loop() }
            t.name = "stratus-disconnects"
            t.start()
        }
        poke()
    }

    /// Stops watching `fd`; call it before the socket is closed.
    func unwatch(_ fd: Int32) {
        _ = state.withLock { $0.watched.removeValue(forKey: fd) }
        poke()
    }

    private func poke() {
        var b: UInt8 = 1
        _ = Glibc.write(wake.write, &b, 1)
    }

    private func loop() {
        var drain = [UInt8](repeating: 0, count: 256)
        while true {
            let fds = state.withLock { Array($0.watched.keys) }
            var polled = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            polled += fds.map { pollfd(fd: $0, events: Int16(POLLIN) | Int16(0x2000 /* POLLRDHUP */), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }
            if polled[0].revents != 0 { while read(wake.read, &drain, drain.count) > 0 {} }
            for p in polled.dropFirst() where p.revents != 0 {
                var byte: UInt8 = 0
                let n = recv(p.fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
                let closed = n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                if n < 0 && !closed { continue }
                // Data from the client ends the watch (the stream goes on); an end of file or an error closes it.
                let action = state.withLock { $0.watched.removeValue(forKey: p.fd) }
                if closed { action?() }
            }
        }
    }
}
