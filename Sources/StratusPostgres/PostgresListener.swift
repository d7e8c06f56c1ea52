import CLibPQ
import Foundation
import Synchronization

/// LISTENs on channels over a connection of its own and hands each NOTIFY to `onNotify`, on a thread of its own.
///
/// When the connection is lost it reconnects (every half second until PostgreSQL is back) and calls `onReconnect`:
/// notifications sent meanwhile are gone, so whoever caches must drop everything it keeps.
public final class PostgresListener: @unchecked Sendable {
    public let url: String
    public let channels: [String]
    private let onNotify: @Sendable (_ channel: String, _ payload: String) -> Void
    private let onReconnect: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let ready = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    public init(url: String, channels: [String], onReconnect: @escaping @Sendable () -> Void = {},
                onNotify: @escaping @Sendable (_ channel: String, _ payload: String) -> Void) {
        self.url = url
        self.channels = channels
        self.onNotify = onNotify
        self.onReconnect = onReconnect
    }

    /// Starts listening on a thread of its own; returns once the first LISTEN is in place (or after `timeout` if
    /// PostgreSQL is away). A server runs `run` on its background work instead, where it is seen and stopped.
    public func start(timeout: TimeInterval = 5) {
        let t = Thread { [self] in run() }
        t.name = "stratus-pg-listen"
        t.start()
        waitUntilListening(timeout: timeout)
    }

    /// Waits until the first LISTEN is in place, or `timeout` has passed.
    public func waitUntilListening(timeout: TimeInterval = 5) { _ = ready.wait(timeout: .now() + timeout) }

    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        _ = finished.wait(timeout: .now() + 2)
    }

    /// Listens, reconnecting as needed, on the calling thread until `stop`.
    public func run() {
        var first = true
        var signalledReady = false
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard let c = try? PostgresConnection(url: url, connectTimeoutSeconds: 2) else { usleep(500_000); continue }
            do {
                for ch in channels { try c.executeScript("LISTEN \(PostgresIdentifier.quoted(ch))") }
            } catch { usleep(500_000); continue }
            if !first { onReconnect() }
            first = false
            if !signalledReady { ready.signal(); signalledReady = true }
            listen(on: c)
        }
        finished.signal()
    }

    /// Waits on the socket until the connection breaks or the listener stops.
    private func listen(on c: PostgresConnection) {
        guard let conn = c.handle else { return }
        let fd = PQsocket(conn)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&p, 1, 200)
            if n < 0 && errno != EINTR { return }
            if n > 0 {
                guard PQconsumeInput(conn) == 1 else { return }
                while let note = PQnotifies(conn) {
                    let channel = String(cString: note.pointee.relname)
                    let payload = note.pointee.extra.map { String(cString: $0) } ?? ""
                    PQfreemem(note)
                    onNotify(channel, payload)
                }
            }
            if PQstatus(conn) != CONNECTION_OK { return }
        }
    }
}
