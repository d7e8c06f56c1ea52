import Foundation
import Synchronization

/// Runs blocking work (the store's synchronous SQLite calls) on threads of its own and suspends the caller.
/// Swift's cooperative pool has one thread per core; a handler that blocks one in SQLite stalls every other
/// connection, so request handlers hand storage work to this pool instead.
public final class BlockingWork: Sendable {
    public static let shared = BlockingWork(threads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
    }
    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)

    public init(threads: Int) {
        for i in 0..<threads {
            let t = Thread { [self] in
                while true {
                    available.wait()
                    let job = queue.withLock { $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }
                    job?()
                }
            }
            t.name = "stratus-blocking-\(i)"
            t.start()
        }
    }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, Error>) in
            queue.withLock { $0.jobs.append { c.resume(with: Result { try body() }) } }
            available.signal()
        }
    }
}
