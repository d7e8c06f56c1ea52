import Foundation
import Synchronization

/// Runs blocking work (the store's synchronous SQLite calls) on threads of its own and suspends the caller.
/// Swift's cooperative pool has one thread per core; a handler that blocks one in SQLite stalls every other
/// connection, so request handlers hand storage work to this pool instead.
///
/// Work goes to the thread that went idle last: one client's requests one after another then run on one
/// thread whose caches and malloc arena are warm, instead of going round all of them (a semaphore's order,
/// which made a sequential change feed's page half again as slow).
public final class BlockingWork: Sendable {
    public static let shared = BlockingWork(threads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        /// Threads waiting for work, the most recently idle last.
        var idle: [Int] = []
    }
    private let state = Mutex(State())
    private let wakeups: [DispatchSemaphore]

    public init(threads: Int) {
        wakeups = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        for i in 0..<threads {
            let t = Thread { [self] in
                while true {
                    let job = state.withLock { s -> (@Sendable () -> Void)? in
                        if !s.jobs.isEmpty { return s.jobs.removeFirst() }
                        s.idle.append(i)
                        return nil
                    }
                    if let job { job() } else { wakeups[i].wait() }
                }
            }
            t.name = "stratus-blocking-\(i)"
            t.start()
        }
    }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, Error>) in
            // A thread woken here finds the job in the queue, or (if a busy thread took it first) goes idle again.
            let wake = state.withLock { s -> Int? in
                s.jobs.append { c.resume(with: Result { try body() }) }
                return s.idle.popLast()
            }
            if let wake { wakeups[wake].signal() }
        }
    }
}
