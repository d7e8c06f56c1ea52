import Foundation
import Synchronization
import Testing
@testable import StratusHTTP

/// Password hashing runs one at a time per server, and a crowd beyond the queue is told "busy" at once.
@Suite struct PasswordWorkTests {
    final class Overlap: Sendable {
        let state = Mutex<(running: Int, most: Int)>((0, 0))
    }

    @Test func oneAtATimeAndBusyPastTheQueue() async throws {
        let work = PasswordWork(concurrency: 1, maxWaiting: 3)
        let overlap = Overlap()
        let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        try await work.run {
                            overlap.state.withLock { $0.running += 1; $0.most = max($0.most, $0.running) }
                            usleep(100_000)
                            overlap.state.withLock { $0.running -= 1 }
                        }
                        return true
                    } catch is PasswordWork.Busy { return false }
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(overlap.state.withLock { $0.most } == 1, "never two hashes at once")
        #expect(outcomes.filter { $0 }.count == 4 && outcomes.filter { !$0 }.count == 2, "one running, three waiting, the rest busy: \(outcomes)")
        // Afterwards it is free again.
        #expect(try await work.run { 42 } == 42)
    }
}
