#if os(Linux)
import CEpoll
import FlyingSocks
import Foundation
import Glibc
import Synchronization

/// One of a server's connection workers: a thread that waits in an epoll of its own for its connections' sockets
/// and runs their tasks itself, being both the sockets' pool (`AsyncSocketPool`) and the tasks' executor
/// (`TaskExecutor`).
///
/// With one event loop for every socket, a request's bytes woke the loop's thread, which woke a connection thread
/// to run the request: two threads woken for every request, each switch a visible share of a one-record lookup. Here
/// the thread the kernel wakes for a socket resumes the waiting task, which is queued here and run by the same
/// thread as soon as the reports are taken: one wake-up per request, none when the next request is already there.
///
/// A worker's thread that blocks (SQLite's writer lock, a PostgreSQL round trip, a long export) holds up the
/// worker's other connections; `ConnectionWorkers`' watcher gives a worker whose threads have all been in the same
/// jobs for a while, with work waiting, another thread, which ends once it finds another thread of the worker
/// waiting, or nothing to do for a while.
final class ConnectionWorker: AsyncSocketPool, TaskExecutor, Sendable {
    private struct State {
        var jobs = JobQueue<UnownedJob>()
        /// Threads running for this worker, and how many of them wait in `epoll_wait`.
        var threads = 0, waiting = 0
        /// The eventfd was written and not yet read: no need to write it again.
        var notified = false
        /// Jobs started so far (the watcher's sign of progress).
        var started = 0
        /// `shutdown()` was called: threads end once the queue is empty; a job queued after runs on a thread of its own.
        var stopping = false
    }
    private let state = Mutex(State())
    private let waits: EpollWaits
    /// Written to wake a waiting thread for a job queued from another thread (an actor's, a timer's, another worker's).
    private let bell: Int32
    private let name: String
    /// Told when a thread starts a job, so that the watcher looks while a worker is busy (see `ConnectionWorkers`).
    private let watch: WorkerWatch
    /// Connections placed here and not yet ended (see `ConnectionWorkers.place`).
    let connections = Atomic<Int>(0)

    init(name: String, watch: WorkerWatch) throws {
        waits = try EpollWaits(shards: 8, closesOnDeinit: true)
        bell = cepoll_eventfd()
        guard bell >= 0, waits.watch(bell) else { throw SocketError.makeFailed("eventfd") }
        self.name = name
        self.watch = watch
        addThread(extra: false)
    }

    deinit { Glibc.close(bell) }

    func prepare() async throws {}
    func run() async throws {}

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try await waits.wait(socket.file.rawValue, reading: events.contains(.read), writing: events.contains(.write))
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        enum Then { case nothing, ring, orphan }
        let then = state.withLock { s -> Then in
            if s.stopping && s.threads == 0 { return .orphan }
            s.jobs.push(job)
            // A thread that is awake takes it before it waits again.
            guard s.threads == s.waiting, !s.notified else { return .nothing }
            s.notified = true
            return .ring
        }
        switch then {
        case .nothing: break
        case .ring: ring()
        // After a shutdown (a late continuation of a connection that ended): a thread of its own, once.
        case .orphan: Thread { [self] in job.runSynchronously(on: asUnownedTaskExecutor()) }.start()
        }
    }

    private func ring() {
        var one: UInt64 = 1
        _ = Glibc.write(bell, &one, 8)
    }

    /// Starts a thread for this worker: its own at first, then one the watcher adds while the worker is blocked.
    func addThread(extra: Bool) {
        state.withLock { $0.threads += 1 }
        let t = Thread { [self] in work(extra: extra) }
        t.name = extra ? "\(name)-extra" : name
        t.stackSize = 1 << 20
        t.start()
    }

    /// Whether the worker may be stalled: a thread is in a job, no thread waits for reports, no job started since
    /// `seen` (updated), and a job or a report waits.
    func looksStalled(since seen: inout Int) -> Bool {
        let (inJobs, started, queued) = state.withLock { s in
            (s.threads > s.waiting && s.waiting == 0 && !s.stopping, s.started, !s.jobs.isEmpty)
        }
        defer { seen = started }
        guard inJobs, started == seen else { return false }
        if queued { return true }
        // An epoll descriptor reads as ready while reports wait in it; looking takes none of them.
        var p = pollfd(fd: waits.epoll, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&p, 1, 0) > 0
    }

    /// Threads the watcher added that still run.
    var addedThreads: Int { state.withLock { max(0, $0.threads - 1) } }

    /// Whether every thread of the worker waits for reports, with nothing queued.
    var isIdle: Bool { state.withLock { $0.threads == $0.waiting && $0.jobs.isEmpty } }

    /// Ends the threads once the queue is empty (a stopped server's worker).
    func shutdown() {
        state.withLock { $0.stopping = true }
        // Never read again: every waiting thread sees it and ends.
        ring()
    }

    /// How long an added thread waits for reports with nothing to do before it ends (milliseconds).
    private static let extraLinger: Int32 = 100

    private func work(extra: Bool) {
        BlockingWork.runInPlace(onThisThreadFor: self)
        let executor = asUnownedTaskExecutor()
        let capacity: Int32 = 64
        var fds = [Int32](repeating: 0, count: Int(capacity))
        var reports = [UInt32](repeating: 0, count: Int(capacity))
        var ready: [CheckedContinuation<Void, any Error>] = []
        while true {
            enum Next { case job(UnownedJob), wait, end }
            let next = state.withLock { s -> Next in
                if let job = s.jobs.pop() { s.started &+= 1; return .job(job) }
                // An added thread is not needed once another of the worker's threads waits for reports.
                if s.stopping || (extra && s.waiting > 0) { s.threads -= 1; return .end }
                s.waiting += 1
                return .wait
            }
            switch next {
            case .job(let job):
                watch.busy()
                job.runSynchronously(on: executor)
            case .end:
                return
            case .wait:
                var error: Int32 = 0
                let n = cepoll_wait(waits.epoll, &fds, &reports, capacity, extra ? Self.extraLinger : -1, &error)
                var rung = false
                for i in 0..<max(0, Int(n)) {
                    if fds[i] == bell { rung = true } else { waits.take(fds[i], reports[i], into: &ready) }
                }
                let lingered = state.withLock { s -> Bool in
                    s.waiting -= 1
                    if rung && !s.stopping {
                        var count: UInt64 = 0
                        _ = Glibc.read(bell, &count, 8)
                        s.notified = false
                    }
                    guard extra, n == 0, s.jobs.isEmpty else { return false }
                    s.threads -= 1
                    return true
                }
                // Each resumed task is queued here (this worker is its executor) and run on the next turn.
                for c in ready { c.resume() }
                ready.removeAll(keepingCapacity: true)
                if lingered { return }
            }
        }
    }
}
#endif
