import Foundation
import StratusStore
import Synchronization
import Testing

/// Background work is started, stopped and seen one way: a stop returns only once the work has ended, and what
/// runs is listed by name while it runs.
@Suite struct BackgroundWorkTests {
    @Test func aLoopOnItsOwnThreadRunsUntilStoppedAndIsListedMeanwhile() async throws {
        let work = BackgroundWork("test loop \(UUID().uuidString)")
        let passes = Mutex(0)
        work.every(.milliseconds(5)) { passes.withLock { $0 += 1 } }
        let deadline = ContinuousClock.now + .seconds(30)
        while passes.withLock({ $0 }) < 3 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(passes.withLock { $0 } >= 3)
        #expect(BackgroundWork.running[work.name] == 1)
        await work.stop()
        let stoppedAt = passes.withLock { $0 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(passes.withLock { $0 } == stoppedAt, "no pass runs after stop returned")
        #expect(BackgroundWork.running[work.name] == nil)
    }

    @Test func stopWaitsForAPieceOfWorkToEnd() async {
        let work = BackgroundWork("test once \(UUID().uuidString)")
        let finished = Mutex(false)
        work.once {
            Thread.sleep(forTimeInterval: 0.2)
            finished.withLock { $0 = true }
        }
        await work.stop()
        #expect(finished.withLock { $0 })
        #expect(BackgroundWork.running[work.name] == nil)
    }

    @Test func anAsyncLoopEndsWhenStopped() async {
        let work = BackgroundWork("test task \(UUID().uuidString)")
        let ended = Mutex(false)
        work.start {
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(5)) }
            ended.withLock { $0 = true }
        }
        #expect(BackgroundWork.running[work.name] == 1)
        await work.stop()
        #expect(ended.withLock { $0 })
        #expect(BackgroundWork.running[work.name] == nil)
    }
}
