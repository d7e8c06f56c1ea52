import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// The threads connections and storage calls run on: work never waits forever behind blocked threads, a task
/// running on the pool makes its storage calls where it is, and a stopped pool still finishes what comes late.
@Suite struct BlockingWorkTests {
    final class Count: Sendable {
        let value = Mutex(0)
    }

    /// Every thread of the pool blocked (a write waiting for SQLite's lock, a slow PostgreSQL): new work still runs,
    /// on a thread the pool adds, while they stay blocked.
    @Test func workRunsWhileEveryThreadIsBlocked() async throws {
        let pool = BlockingWork(threads: 2, extra: 4, name: "test-blocked")
        let release = DispatchSemaphore(value: 0)
        let blocked = Count(), finished = Count()
        let blockers = (0..<2).map { _ in
            Task { try await pool.run { blocked.value.withLock { $0 += 1 }; release.wait(); finished.value.withLock { $0 += 1 } } }
        }
        for _ in 0..<2000 where blocked.value.withLock({ $0 }) < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(blocked.value.withLock { $0 } == 2)
        // The new work notes how many blockers had finished when it ran; they are let go after 30 s in any case, so
        // that a pool that never adds a thread fails this test instead of hanging it.
        let finishedWhenItRan = try await withThrowingTaskGroup(of: Int?.self) { group -> Int? in
            group.addTask { try await pool.run { finished.value.withLock { $0 } } }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return nil
            }
            let first = try await group.next()!
            release.signal()
            release.signal()
            if let first { group.cancelAll(); return first }
            return try await group.next()!
        }
        #expect(finishedWhenItRan == 0, "it ran while both threads were still blocked")
        for b in blockers { try await b.value }
        pool.shutdown()
    }

    /// A task whose executor is the pool (a connection's, see `HTTPServer`) runs `run`'s body where it is: no job
    /// handed to another thread and back.
    @Test func runOnThePoolsOwnThreadRunsInPlace() async throws {
        let pool = BlockingWork(threads: 2, extra: 0, name: "test-in-place")
        let jobs = try await withTaskExecutorPreference(pool) {
            let before = pool.jobsStarted
            let inside = try await pool.run { BlockingWork.onInPlaceThread }
            #expect(inside)
            return pool.jobsStarted - before
        }
        #expect(jobs == 0)
        // A pool that does not run in place (password hashing's) hands its work to its own threads even from there.
        let passwords = BlockingWork(threads: 1, extra: 0, name: "test-hop", runsInPlace: false)
        let hashedInPlace = try await withTaskExecutorPreference(pool) {
            try await passwords.run { BlockingWork.onInPlaceThread }
        }
        #expect(!hashedInPlace)
        pool.shutdown()
        passwords.shutdown()
    }

    /// After `shutdown` (a stopped server's pool) work that arrives late — a connection's last continuation — runs.
    @Test func workAfterShutdownStillRuns() async throws {
        let pool = BlockingWork(threads: 2, extra: 2, name: "test-shutdown")
        #expect(try await pool.run { 1 } == 1)
        pool.shutdown()
        #expect(try await pool.run { 2 } == 2)
    }
}
