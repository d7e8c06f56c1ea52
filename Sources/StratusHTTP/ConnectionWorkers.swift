import FlyingSocks
import Foundation
import Synchronization

/// Where a server's connections run: on Linux a few `ConnectionWorker`s, each a thread with an epoll of its own, and a
/// watcher that gives a worker blocked in its jobs another thread while work waits; elsewhere a `BlockingWork` pool
/// on the process's shared event loop.
final class ConnectionWorkers: Sendable {
    /// `perCore` workers per core, at least two: with one per core, a worker that finishes a request finds its
    /// next connection's request waiting more often than a thread among more of them, and threads that only take
    /// turns on the cores cost switches (see `HTTPServerConfig.workersPerCore` for when two are better).
    static func standardCount(perCore: Int = 1) -> Int {
        max(2, max(1, perCore) * ProcessInfo.processInfo.activeProcessorCount)
    }

    #if os(Linux)
    private let workers: [ConnectionWorker]
    private let watch: WorkerWatch
    /// Threads the watcher may add, all workers together.
    private let extra: Int
    private let stopping = Atomic<Bool>(false)
    #else
    private let threads: BlockingWork
    #endif

    /// `count` workers, and up to `extra` more threads while they are blocked.
    init(count: Int = standardCount(), extra: Int, name: String) throws {
        #if os(Linux)
        let watch = WorkerWatch()
        self.watch = watch
        workers = try (0..<count).map { try ConnectionWorker(name: "\(name)-\($0)", watch: watch) }
        self.extra = extra
        let t = Thread { [self] in watchWorkers() }
        t.name = "\(name)-watcher"
        t.stackSize = 256 * 1024
        t.start()
        #else
        threads = BlockingWork(threads: 2 * count, extra: extra, name: name)
        #endif
    }

    /// A connection accepted on `listener`'s socket, given to the worker with the fewest connections: its socket,
    /// and the executor its task runs on. `release` it when the connection ends.
    func place(_ accepted: AsyncSocket) throws -> Placement {
        #if os(Linux)
        let worker = workers.min { $0.connections.load(ordering: .relaxed) < $1.connections.load(ordering: .relaxed) }!
        worker.connections.add(1, ordering: .relaxed)
        return Placement(socket: try AsyncSocket(socket: accepted.socket, pool: worker), executor: worker,
                         release: { worker.connections.subtract(1, ordering: .relaxed) })
        #else
        return Placement(socket: accepted, executor: threads, release: {})
        #endif
    }

    struct Placement: Sendable {
        let socket: AsyncSocket
        let executor: any TaskExecutor
        let release: @Sendable () -> Void
    }

    /// Ends the workers' threads once they are idle (a stopped server's).
    func shutdown() {
        #if os(Linux)
        stopping.store(true, ordering: .sequentiallyConsistent)
        watch.wake()
        for w in workers { w.shutdown() }
        #else
        threads.shutdown()
        #endif
    }

    #if os(Linux)
    /// Looks at the workers every half `BlockingWork.stall`: one that made no progress at two looks in a row while
    /// work waited gets another thread. Sleeps while every worker has been idle for a while.
    private func watchWorkers() {
        let stall = UInt64(BlockingWork.stall.components.attoseconds / 1_000_000_000)
        let interval = useconds_t(stall / 2_000)
        var seen = [Int](repeating: -1, count: workers.count)
        var stalled = [Int](repeating: 0, count: workers.count)
        var quiet = 0
        while !stopping.load(ordering: .sequentiallyConsistent) {
            usleep(interval)
            var idle = true
            var added = workers.reduce(0) { $0 + $1.addedThreads }
            for (i, w) in workers.enumerated() {
                if !w.isIdle { idle = false }
                stalled[i] = w.looksStalled(since: &seen[i]) ? stalled[i] + 1 : 0
                guard stalled[i] >= 2, added < extra else { continue }
                w.addThread(extra: true)
                added += 1
                stalled[i] = 0
            }
            quiet = idle ? quiet + 1 : 0
            if quiet >= 20 {
                quiet = 0
                watch.sleep(ifStill: { [self] in
                    !stopping.load(ordering: .sequentiallyConsistent) && workers.allSatisfy(\.isIdle)
                })
            }
        }
    }
    #endif
}
