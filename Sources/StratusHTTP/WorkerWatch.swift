import Foundation
import Synchronization

/// Wakes `ConnectionWorkers`' watcher, asleep while every worker is idle, when a worker's thread starts a job: a
/// worker that is never watched while busy could block its connections for as long as one of its jobs blocks.
final class WorkerWatch: Sendable {
    private let asleep = Atomic<Bool>(false)
    private let sleeper = DispatchSemaphore(value: 0)

    /// A worker's thread starts a job: one load while the watcher is awake.
    func busy() {
        guard asleep.load(ordering: .sequentiallyConsistent),
              asleep.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
        else { return }
        sleeper.signal()
    }

    /// Sleeps until a worker is busy, unless `stillIdle` (looked at after the watcher is marked asleep, so that a
    /// job started meanwhile is seen either here or by `busy`) says otherwise.
    func sleep(ifStill stillIdle: () -> Bool) {
        asleep.store(true, ordering: .sequentiallyConsistent)
        if stillIdle() { sleeper.wait() } else { asleep.store(false, ordering: .sequentiallyConsistent) }
    }

    /// Wakes the watcher whatever the workers do (a stopping server's).
    func wake() {
        asleep.store(false, ordering: .sequentiallyConsistent)
        sleeper.signal()
    }
}
