import Foundation
import Synchronization

/// Work apart from requests — log flushers, the deliverers, the query-shape keeper, automatic-index builds,
/// console imports — started, stopped and seen one way. Each has a name and runs either on a thread of its own
/// (blocking work: store writes must never hold one of Swift's few cooperative threads) or, for an async loop, as
/// a detached task. `stop` asks it to end and waits until it has, so a stop never leaves work running against a
/// closed store; `BackgroundWork.running` lists what runs now, by name (`/metrics`: `stratus_background_work`).
public final class BackgroundWork: Sendable {
    public let name: String
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Set by `stop`; a thread's loop reads it between passes.
    private let stopping = Mutex(false)
    /// Signalled by `stop` to cut a thread's wait between passes short.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when a thread's work has ended.
    private let ended = DispatchSemaphore(value: 0)
    private let onThread = Mutex(false)

    private static let registry = Mutex<[String: Int]>([:])

    public init(_ name: String) { self.name = name }

    /// What runs now: each piece of work's name with how many of that name run.
    public static var running: [String: Int] { registry.withLock { $0 } }

    /// Whether `stop` was asked for (an async loop sees it as its task's cancellation).
    public var isStopping: Bool { stopping.withLock { $0 } }

    /// Runs an async loop as a detached task until it returns or `stop` cancels it.
    public func start(_ body: @escaping @Sendable () async -> Void) {
        let name = self.name
        Self.enter(name)
        task.withLock { $0 = Task.detached { await body(); Self.leave(name) } }
    }

    /// Runs `body` as an async loop every `interval` until `stop`: first at once when `immediately`, else after one
    /// interval.
    public func repeating(every interval: Duration, immediately: Bool = false,
                          _ body: @escaping @Sendable () async -> Void) {
        start {
            if immediately { await body() }
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                await body()
            }
        }
    }

    /// Runs `body` on a thread of its own every `interval`, until `stop`; the pass running when it is asked ends first.
    public func every(_ interval: Duration, _ body: @escaping @Sendable () -> Void) {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        thread { [self] in
            while !isStopping {
                _ = wake.wait(timeout: .now() + seconds)
                if isStopping { return }
                body()
            }
        }
    }

    /// Runs `body` once on a thread of its own (an index build, an import); `stop` waits for it to end.
    public func once(_ body: @escaping @Sendable () -> Void) { thread(body) }

    private func thread(_ body: @escaping @Sendable () -> Void) {
        let name = self.name
        Self.enter(name)
        onThread.withLock { $0 = true }
        let ended = self.ended
        let t = Thread {
            body()
            Self.leave(name)
            ended.signal()
        }
        t.name = "stratus: \(name)"
        t.start()
    }

    /// Asks the work to end and waits until it has (a task is cancelled; a thread finishes its pass).
    public func stop() async {
        stopping.withLock { $0 = true }
        let t = task.withLock { t -> Task<Void, Never>? in defer { t = nil }; return t }
        t?.cancel()
        await t?.value
        if onThread.withLock({ $0 }) {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread { self.stopThread(); done.resume() }.start()
            }
        }
    }

    /// The same from blocking code: asks a thread's work to end and waits until it has.
    public func stopThread() {
        let started = onThread.withLock { s in defer { s = false }; return s }
        stopping.withLock { $0 = true }
        guard started else { return }
        wake.signal()
        ended.wait()
    }

    private static func enter(_ name: String) { registry.withLock { $0[name, default: 0] += 1 } }
    private static func leave(_ name: String) {
        registry.withLock { r in
            r[name, default: 1] -= 1
            if r[name] == 0 { r[name] = nil }
        }
    }
}
