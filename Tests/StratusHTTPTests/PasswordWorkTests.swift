import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// Password hashing runs one at a time per server, and a crowd beyond the queue is told "busy" at once.
@Suite struct PasswordWorkTests {
    final class Overlap: Sendable {
        let state = Mutex<(running: Int, most: Int)>((0, 0))
        /// Callers told "busy".
        let refused = Atomic<Int>(0)
    }

    @Test func oneAtATimeAndBusyPastTheQueue() async throws {
        let work = PasswordWork(concurrency: 1, maxWaiting: 3)
        let overlap = Overlap()
        // The first hash holds its turn until the crowd has been told: however late a caller arrives on a busy
        // machine, it finds one running and three waiting.
        let gate = DispatchSemaphore(value: 0)
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        try await work.run {
                            overlap.state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                            _ = gate.wait(timeout: .now() + 20)
                            overlap.state.withLock { $0.running -= 1 }
                        }
                        return true
                    } catch is PasswordWork.Busy {
                        overlap.refused.add(1, ordering: .relaxed)
                        return false
                    }
                }
            }
            let deadline = ContinuousClock.now + .seconds(20)
            while overlap.refused.load(ordering: .relaxed) < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<4 { gate.signal() }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(overlap.state.withLock { $0.most } == 1, "never two hashes at once")
        #expect(outcomes.filter { $0 }.count == 4 && outcomes.filter { !$0 }.count == 2, "one running, three waiting, the rest busy: \(outcomes)")
        // Afterwards it is free again.
        #expect(try await work.run { 42 } == 42)
    }
}
