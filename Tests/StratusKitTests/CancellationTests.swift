import Foundation
import Synchronization
import Testing
@testable import StratusKit

/// A request cancelled at any moment — before it is sent, in flight, as its answer arrives — ends, with its answer
/// or `.operationCancelled`. FoundationNetworking's own `URLSession.data(for:)` could stop for good there: its
/// cancellation waited on the session's queue while that queue, finishing the request, waited on the cancelled
/// task (a released `CKSyncEngine` hung a CI run so).
@Suite struct CancellationTests {
    @Test func requestsCancelledAtAnyMomentEndAndNeverHang() async throws {
        let f = try await KitFixture()
        let database = f.aliceContainer().privateCloudDatabase
        // Cancellations spread from the start to past the moment answers arrive (a request's usual time, measured
        // first), where the session's queue finishing the request meets the cancellation. From the start, not from
        // half of it: a usual time measured while the machine was busier than later left every request answered
        // before its cancellation (a CI run), and the test then tested nothing.
        var times: [Duration] = []
        for _ in 0..<20 { times.append(try await ContinuousClock().measure { _ = try await database.allRecordZones() }) }
        let usual = times.sorted()[10]
        let ended = Ends()
        let work = Task {
            for round in 0..<(Self.requests / 8) {
                await withTaskGroup(of: Void.self) { group in
                    for k in 0..<8 {
                        let i = round * 8 + k
                        group.addTask {
                            let request = Task { try await database.allRecordZones() }
                            try? await Task.sleep(for: usual * (Double((i * 7919) % 1000) / 1000 * 1.5))
                            request.cancel()
                            switch await request.result {
                            case .success: ended.state.withLock { $0.answered += 1 }
                            case .failure(let e as CKError) where e.code == .operationCancelled: ended.state.withLock { $0.cancelled += 1 }
                            case .failure(let e): ended.state.withLock { $0.other.append("\(e)") }
                            }
                        }
                    }
                }
            }
        }
        // A deadlocked request never ends: the test fails when requests stop ending for 60 s (on a loaded machine
        // they end slowly, but they end), rather than waiting for the work itself.
        var seen = 0, lastProgress = ContinuousClock.now
        while seen < Self.requests, ContinuousClock.now - lastProgress < .seconds(60) {
            try await Task.sleep(for: .milliseconds(100))
            let now = ended.state.withLock { $0.answered + $0.cancelled + $0.other.count }
            if now > seen { (seen, lastProgress) = (now, ContinuousClock.now) }
        }
        let result = ended.state.withLock { $0 }
        #expect(seen == Self.requests, "requests stopped ending for 60 s with \(Self.requests - seen) still waiting")
        #expect(result.other.isEmpty, "\(result.other.prefix(3))")
        #expect(result.cancelled > 0, "no request was cancelled in flight: the test did not test")
        if seen == Self.requests { await work.value }
    }

    static let requests = 1000

    final class Ends: Sendable {
        let state = Mutex((answered: 0, cancelled: 0, other: [String]()))
    }
}
