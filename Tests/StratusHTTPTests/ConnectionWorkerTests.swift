import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// A server's connections run on its workers (`ConnectionWorkers`), a thread each with an epoll of its own: a
/// worker's thread blocked in one connection's request (SQLite's writer lock, a slow PostgreSQL) does not hold up the
/// other connections it serves, and work that resumes from another thread reaches the worker's.
@Suite struct ConnectionWorkerTests {
    /// `/block` holds its thread (not a suspension: a synchronous wait, as a store call's) until the test lets it
    /// go, or 30 s have passed, so that a worker that never gets another thread fails the test instead of hanging it.
    final class Latch: Sendable {
        private let released = DispatchSemaphore(value: 0)
        let entered = Mutex(false), left = Mutex(false)
        func hold() {
            entered.withLock { $0 = true }
            _ = released.wait(timeout: .now() + 30)
            left.withLock { $0 = true }
        }
        func release() { released.signal() }
    }

    @Test func aBlockedRequestDoesNotHoldUpItsWorkersOtherConnections() async throws {
        let latch = Latch()
        let s = try await TestServer(routes: { router in
            router.add(.get, "/block") { _ in latch.hold(); return .text("unblocked") }
        })
        let blocked = try s.client()
        blocked.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in 0..<2000 where !latch.entered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(latch.entered.withLock { $0 })
        // A connection goes to the worker with the fewest: one more per worker puts one beside the blocked one.
        let others = try (0..<ConnectionWorkers.standardCount()).map { _ in try s.client() }
        var answeredWhileBlocked = 0
        for (i, c) in others.enumerated() {
            c.send("GET /items/o\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = await c.response()
            // Answered while `/block` still held its thread.
            if r.map({ String(decoding: $0.body, as: UTF8.self) }) == "item o\(i)" && !latch.left.withLock({ $0 }) {
                answeredWhileBlocked += 1
            }
        }
        #expect(answeredWhileBlocked == others.count, "every other connection was answered while one request blocked")
        latch.release()
        #expect(await blocked.response().map { String(decoding: $0.body, as: UTF8.self) } == "unblocked")
        // The worker's added thread is let go; the worker still answers on its own thread.
        try await Task.sleep(for: .milliseconds(300))
        for (i, c) in others.enumerated() {
            c.send("GET /items/again\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await c.response().map { String(decoding: $0.body, as: UTF8.self) } == "item again\(i)")
        }
        await s.server.stop()
    }

    /// A handler that suspends and is resumed from another thread (a timer's, here) is run on by its worker again:
    /// the worker's thread, waiting in epoll for its sockets, is woken for it. Many at once, on every worker.
    @Test func workResumedFromAnotherThreadWakesTheWorker() async throws {
        let s = try await TestServer(routes: { router in
            router.add(.get, "/nap/{n}") { req in
                try await Task.sleep(for: .milliseconds(20))
                return .text("woke \(req.parameters["n"] ?? "")")
            }
        })
        let clients = try (0..<8).map { _ in try s.client() }
        for round in 0..<5 {
            for (i, c) in clients.enumerated() { c.send("GET /nap/\(round)-\(i) HTTP/1.1\r\nHost: x\r\n\r\n") }
            for (i, c) in clients.enumerated() {
                #expect(await c.response().map { String(decoding: $0.body, as: UTF8.self) } == "woke \(round)-\(i)")
            }
        }
        await s.server.stop()
    }
}
