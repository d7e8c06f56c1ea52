import Foundation
import StratusTestSupport
import Testing
@testable import StratusHTTP
#if canImport(Glibc)
import Glibc
#endif

/// Connections are a budget: a stranger who opens many cannot take the server's descriptors, or its answer to
/// everyone else. Each test floods from another loopback address than the one that then asks for `/-/health`.
@Suite struct ConnectionBudgetTests {
    /// Past its share, an address's connections are answered 503 at once and closed; others are served as usual.
    @Test func oneAddressGetsItsShareAndNoMore() async throws {
        // The held connections send nothing: a first-byte deadline longer than the test keeps them open on a busy machine.
        let s = try await TestServer { $0.maxConnectionsPerAddress = 20; $0.maxConnections = 200; $0.firstByteTimeout = .seconds(600) }
        let held = try (0..<20).map { _ in try s.client(from: "127.0.0.2") }
        #expect(try await waitFor { s.server.openConnections == 20 })
        for _ in 0..<5 {
            let over = try s.client(timeout: 30, from: "127.0.0.2")
            let answer = String(decoding: await over.all(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("\"serverErrorCode\":\"THROTTLED\"") && answer.contains("retry-after: 1"), "\(answer)")
        }
        #expect(try await s.get("/-/health")?.status == 200)
        let figures = s.server.connectionFigures
        #expect(figures.refusedForAddress == 5 && figures.perAddress == 20)
        _ = held
        await s.server.stop()
    }

    /// At the total, a crowd of idle sockets gives up places to newcomers: health answers during the flood.
    @Test func atTheTotalIdleConnectionsMakeRoom() async throws {
        let s = try await TestServer { $0.maxConnections = 40; $0.maxConnectionsPerAddress = 1_000 }
        var flood: [RawClient] = []
        for i in 0..<60 { flood.append(try s.client(from: "127.0.0.\(3 + i % 4)")) }
        // The crowd holds every place once the accept loop has taken it in (on a loaded machine, a while after the
        // connects return), and may be displaced once it has sent nothing for `evictableAfter`.
        let filled = ContinuousClock.now + .seconds(30)
        while s.server.openConnections < 40 && ContinuousClock.now < filled { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: ConnectionBudget.evictableAfter + .milliseconds(150))
        let start = ContinuousClock.now
        let health = try await s.get("/-/health")
        #expect(health?.status == 200)
        #expect(ContinuousClock.now - start < .seconds(30))
        #expect(s.server.openConnections <= 40 + ConnectionBudget(limit: 40, perAddress: 1).slack)
        #expect(s.server.connectionFigures.evicted >= 1)
        _ = flood
        await s.server.stop()
    }

    /// A connection that sends nothing is closed within seconds, long before the keep-alive's idle time.
    @Test func aSilentNewConnectionIsClosedWithinSeconds() async throws {
        let s = try await TestServer(idleTimeout: .seconds(600)) { $0.firstByteTimeout = .milliseconds(500) }
        let silent = try s.client(timeout: 120)
        let start = ContinuousClock.now
        _ = await silent.all()
        // Generous for a loaded 2-core machine; the idle timeout it no longer waits for is ten minutes.
        #expect(ContinuousClock.now - start < .seconds(60))
        #expect(try await waitFor { s.server.openConnections == 0 })
        await s.server.stop()
    }

    /// The soft descriptor limit is raised to the hard one, and connections stay below it less a reserve.
    @Test func theDescriptorLimitIsRaisedAndReserved() async throws {
        let s = try await TestServer { $0.maxConnections = 1_000_000 }
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #expect(limit.rlim_cur == limit.rlim_max)
        let soft = Int(limit.rlim_cur)
        #expect(s.server.connectionFigures.limit == soft - DescriptorLimit.reserve(under: soft))
        await s.server.stop()
    }

    /// The accounting: places are given back as connections close, and a trusted proxy counts toward the total only.
    @Test func placesAreGivenBackAndProxiesCountOnlyInAll() {
        let budget = ConnectionBudget(limit: 3, perAddress: 1)
        let t0 = ContinuousClock.now
        let a = ConnectionWatchdog(fd: -1, address: "10.0.0.1", deadline: .now)
        let b = ConnectionWatchdog(fd: -1, address: "10.0.0.1", deadline: .now)
        #expect(budget.admit(a, exempt: false) == .admitted)
        #expect(budget.admit(b, exempt: false) == .overAddress)
        budget.release(a)
        #expect(budget.admit(b, exempt: false) == .admitted)
        let proxy = (0..<2).map { _ in ConnectionWatchdog(fd: -1, address: "127.0.0.1", deadline: .now) }
        for p in proxy { #expect(budget.admit(p, exempt: true) == .admitted) }
        // Full, and nobody idle long enough to give up a place.
        #expect(budget.admit(ConnectionWatchdog(fd: -1, address: "10.0.0.9", deadline: .now), exempt: false, now: t0) == .overTotal)
        #expect(budget.count == 3)
    }

    func waitFor(_ condition: @escaping () -> Bool) async throws -> Bool {
        for _ in 0..<300 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }
}
