import StratusTestSupport
import Foundation
import Synchronization
import Testing
@testable import StratusHTTP
#if canImport(Glibc)
import Glibc
#endif

/// The server's event loop (`EpollSocketPool` on Linux): every wait ends in an answer, whatever the order of
/// arrivals, however descriptor numbers are reused, and a waiting task that is cancelled lets go.
@Suite struct EventLoopTests {
    /// Hundreds of connections one after another (the kernel hands each the number the last one freed), many idle
    /// ones held open meanwhile (waits that stay armed), and requests sent in pieces (a wait armed before the rest of
    /// the bytes arrive): each is answered, and every held one still answers at the end.
    @Test func everyWaitEndsInAnAnswer() async throws {
        // The held connections wait through all 300 others: on a loaded 2-core machine that has taken over a minute,
        // past the default idle timeout (30 s) and the first-byte deadline (5 s), which would rightly close them —
        // not what this test is about.
        let s = try await TestServer(idleTimeout: .seconds(600), configure: { $0.firstByteTimeout = .seconds(600) })
        let held = try (0..<40).map { _ in try s.client() }
        for i in 0..<300 {
            let c = try s.client()
            if i % 3 == 0 {
                // The head in two pieces, the second after the server has had time to wait for it.
                c.send("GET /items/n\(i) HTTP/1.1\r\nHo")
                try await Task.sleep(for: .milliseconds(2))
                c.send("st: x\r\n\r\n")
            } else {
                c.send("GET /items/n\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            let r = await c.response()
            #expect(r?.status == 200 && r.map { String(decoding: $0.body, as: UTF8.self) } == "item n\(i)", "connection \(i)")
            c.close()
        }
        for (i, c) in held.enumerated() {
            c.send("GET /items/held\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
            let r = await c.response()
            #expect(r.map { String(decoding: $0.body, as: UTF8.self) } == "item held\(i)", "held connection \(i)")
        }
        await s.server.stop()
    }

    /// Twenty clients at once, each sending its requests on one connection as fast as answers come back: nothing
    /// is lost or answered to the wrong connection.
    @Test func concurrentClientsGetTheirOwnAnswers() async throws {
        let s = try await TestServer()
        let wrong = await withTaskGroup(of: Int.self) { group in
            for c in 0..<20 {
                group.addTask {
                    guard let client = try? s.client() else { return 50 }
                    var wrong = 0
                    for i in 0..<50 {
                        client.send("GET /items/c\(c)-\(i) HTTP/1.1\r\nHost: x\r\n\r\n")
                        let r = await client.response()
                        if r.map({ String(decoding: $0.body, as: UTF8.self) }) != "item c\(c)-\(i)" { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        await s.server.stop()
    }

    #if os(Linux)
    /// A task waiting for a socket that never becomes readable ends when it is cancelled, and the loop goes on
    /// serving other waits on the same descriptor afterwards.
    @Test func aCancelledWaitEnds() async throws {
        let pool = try #require(try await SharedSocketPool.get() as? EpollSocketPool)
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let fd = fds[0]
        let waiting = Outcome()
        let task = Task { await waiting.record { try await pool.wait(fd, reading: true, writing: false) } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(waiting.value == nil, "nothing was written: the wait goes on")
        task.cancel()
        #expect(await waiting.settled(within: .seconds(10)) == "cancelled")
        // The same descriptor waited on again: woken by data.
        let again = Outcome()
        _ = Task { await again.record { try await pool.wait(fd, reading: true, writing: false) } }
        try await Task.sleep(for: .milliseconds(50))
        var byte: UInt8 = 1
        #expect(write(fds[1], &byte, 1) == 1)
        #expect(await again.settled(within: .seconds(10)) == "ready")
    }
    #endif

    /// How a wait ended, if it has: "ready", "cancelled" or "failed". A wait that never ends fails the test after a
    /// bound instead of hanging the suite.
    final class Outcome: Sendable {
        private let state = Mutex<String?>(nil)
        var value: String? { state.withLock { $0 } }

        func record(_ body: () async throws -> Void) async {
            let result: String
            do { try await body(); result = "ready" } catch is CancellationError { result = "cancelled" } catch { result = "failed" }
            state.withLock { $0 = result }
        }

        func settled(within limit: Duration) async -> String? {
            let deadline = ContinuousClock.now + limit
            while value == nil && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
            return value
        }
    }
}
