import Foundation
import Synchronization

/// Runs blocking work (the store's synchronous SQLite calls) on threads of its own and suspends the caller; and,
/// as a task executor, runs an HTTP server's connections where there are no `ConnectionWorker`s (off Linux).
///
/// Swift's cooperative pool has one thread per core; a handler that blocks one in SQLite stalls every other
/// connection, so storage work runs on threads like these instead. `run` called on a thread that runs in place (a
/// connection worker's, or one of a pool that `runsInPlace`) runs its body there: a request is read, handled and
/// answered on one thread, with no hand-off to another and back. Work that only suspends (reading a socket, a stream
/// waiting for events) holds no thread; what blocks holds one, and while every thread is blocked the pool adds
/// threads (see `stall`).
///
/// Work goes to the thread that went idle last: one client's requests one after another then run on one
/// thread whose caches and malloc arena are warm, instead of going round all of them (a semaphore's order,
/// which made a sequential change feed's page half again as slow).
public final class BlockingWork: Sendable {
    /// Two threads per core: more make every connection wake a thread of its own, where with two per core a thread
    /// that finishes a request finds the next one waiting.
    public static let shared = BlockingWork(threads: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// How long the oldest job may wait while no thread starts one before the pool adds a thread: every thread is
    /// then blocked (in SQLite's writer lock, a PostgreSQL round trip, a long import) or busy with long work, and
    /// what waits may be a health check. A pool that is merely busy keeps its size: its threads start jobs all the
    /// time, and more threads than the cores can run made every request dearer (see `shared`).
    static let stall: Duration = .milliseconds(10)

    private struct State {
        /// Queued jobs, each with when it was queued (`DispatchTime` nanoseconds).
        var jobs = JobQueue<(job: @Sendable () -> Void, queuedAt: UInt64)>()
        /// Threads waiting for work, the most recently idle last.
        var idle: [Int] = []
        /// Slots of threads that may still be added (ended extra threads give theirs back).
        var free: [Int] = []
        /// Whether the watcher is looking at the queue (it sleeps while no job waits for a thread).
        var watching = false
        /// `shutdown()` was called: idle threads end, and a job queued after runs on a thread of its own.
        var stopping = false
        /// Jobs started so far: the watcher adds a thread only while this stands still.
        var started = 0

        mutating func take() -> (@Sendable () -> Void)? {
            guard let next = jobs.pop() else { return nil }
            started &+= 1
            return next.job
        }
    }
    private let state = Mutex(State())
    /// One per slot: the pool's own threads first, then the ones it may add.
    private let wakeups: [DispatchSemaphore]
    private let watcher = DispatchSemaphore(value: 0)
    private let name: String
    /// Whether `run` runs its body in place when called on a thread of any pool that does too (see `run`).
    let runsInPlace: Bool
    /// Set on the threads of pools that run in place (see `run`).
    private static let poolKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// `threads` that run for the process's life, and up to `extra` more while all of them are blocked.
    public init(threads: Int, extra: Int = 60, name: String = "stratus-blocking", runsInPlace: Bool = true) {
        self.name = name
        self.runsInPlace = runsInPlace
        wakeups = (0..<(threads + extra)).map { _ in DispatchSemaphore(value: 0) }
        state.withLock { $0.free = Array((threads..<(threads + extra)).reversed()) }
        for i in 0..<threads { start(i, extra: false) }
        if extra > 0 {
            let t = Thread { [self] in watch() }
            t.name = "\(name)-watcher"
            t.start()
        }
    }

    private func start(_ slot: Int, extra: Bool) {
        let t = Thread { [self] in work(slot, extra: extra) }
        t.name = "\(name)-\(slot)"
        t.start()
    }

    /// Marks the calling thread as one on which `run` runs its body in place (a connection worker's, see
    /// `ConnectionWorker`, or one of a pool that `runsInPlace`).
    static func runInPlace(onThisThreadFor owner: AnyObject) {
        pthread_setspecific(poolKey, Unmanaged.passUnretained(owner).toOpaque())
    }

    private func work(_ slot: Int, extra: Bool) {
        if runsInPlace { Self.runInPlace(onThisThreadFor: self) }
        while true {
            enum Next { case job(@Sendable () -> Void), sleep, end }
            let next = state.withLock { s -> Next in
                if let job = s.take() { return .job(job) }
                if s.stopping { return .end }
                // An added thread ends as soon as the queue is empty: the pool's own threads are enough again.
                if extra { s.free.append(slot); return .end }
                s.idle.append(slot)
                return .sleep
            }
            switch next {
            case .job(let job): job()
            case .end: return
            case .sleep: wakeups[slot].wait()
            }
        }
    }

    /// Adds a thread when the oldest queued job has waited `stall` and no thread started a job since the last look;
    /// sleeps while no job waits for a thread.
    private func watch() {
        let stall = UInt64(Self.stall.components.attoseconds / 1_000_000_000)
        let interval = useconds_t(stall / 2_000)
        while true {
            watcher.wait()
            if state.withLock({ $0.stopping }) { return }
            var seen = state.withLock { $0.started }
            while true {
                usleep(interval)
                enum Next { case stop, wait, add(Int) }
                let now = DispatchTime.now().uptimeNanoseconds
                let next = state.withLock { s -> Next in
                    guard let oldest = s.jobs.first else { s.watching = false; return .stop }
                    defer { seen = s.started }
                    guard s.started == seen, now &- oldest.queuedAt >= stall, let slot = s.free.popLast() else { return .wait }
                    return .add(slot)
                }
                switch next {
                case .stop: break
                case .wait: continue
                case .add(let slot): start(slot, extra: true); continue
                }
                break
            }
        }
    }

    /// Whether the calling thread runs `run` in place (a connection worker's, or one of a pool that `runsInPlace`).
    static var onInPlaceThread: Bool { pthread_getspecific(poolKey) != nil }
    /// Jobs this pool's threads have started (for tests: a hand-off is a job).
    var jobsStarted: Int { state.withLock { $0.started } }

    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        // Already on one of these threads (a connection's task, see `HTTPServer`): no hop there and back.
        if runsInPlace && Self.onInPlaceThread { return try body() }
        return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, Error>) in
            submit { c.resume(with: Result { try body() }) }
        }
    }

    /// Ends the threads once they are idle (a stopped server's pool); work queued after still runs.
    public func shutdown() {
        let idle = state.withLock { s -> [Int] in
            s.stopping = true
            defer { s.idle = [] }
            return s.idle
        }
        for slot in idle { wakeups[slot].signal() }
        watcher.signal()
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        // A thread woken here finds the job in the queue, or (if a busy thread took it first) goes idle again. With
        // every thread busy, the watcher starts looking at whether any of them takes a job soon (see `stall`).
        let now = DispatchTime.now().uptimeNanoseconds
        let (wake, watch, stopped) = state.withLock { s -> (Int?, Bool, Bool) in
            if s.stopping && s.idle.isEmpty { return (nil, false, true) }
            s.jobs.push((job, now))
            if let idle = s.idle.popLast() { return (idle, false, false) }
            guard !s.watching, !s.free.isEmpty else { return (nil, false, false) }
            s.watching = true
            return (nil, true, false)
        }
        // After a shutdown (a late continuation of a connection that ended): a thread of its own, once.
        if stopped { Thread { job() }.start(); return }
        if let wake { wakeups[wake].signal() }
        if watch { watcher.signal() }
    }
}

/// The executor connections run on where there are no `ConnectionWorker`s (see `ConnectionWorkers`), so that a
/// request is read, handled and answered on one thread, its storage calls made where it is.
extension BlockingWork: TaskExecutor {
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        submit { job.runSynchronously(on: executor) }
    }
}
