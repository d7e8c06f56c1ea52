#if os(Linux)
import CEpoll
import FlyingSocks
import Glibc
import Synchronization

/// The tasks waiting on the descriptors of one epoll instance, and what its reports wake: shared by the process's
/// event loop (`EpollSocketPool`) and the connection workers (`ConnectionWorker`), which differ only in the
/// threads that wait.
///
/// A wait arms its descriptor once (`EPOLLONESHOT`, level-triggered, so data that came before the arm still wakes
/// it): no descriptor is added and deleted again around every read that has to wait.
final class EpollWaits: Sendable {
    /// One task waiting on one descriptor. Touched only under its shard's lock.
    private final class Wait: @unchecked Sendable {
        let fd: Int32
        /// `CEPOLL_IN`, `CEPOLL_OUT` or both.
        let events: UInt32
        var continuation: CheckedContinuation<Void, any Error>?
        var cancelled = false

        init(fd: Int32, events: UInt32) {
            self.fd = fd
            self.events = events
        }
    }

    /// The waits of the descriptors whose numbers fall to it. A wait arms its descriptor (a system call) under its
    /// shard's lock, so that a report cannot be taken before the wait is listed; with one lock for every socket of a
    /// busy loop, connections' waits queued behind each other's system calls.
    private final class Shard: Sendable {
        let waits = Mutex<[Int32: [Wait]]>([:])
    }

    let epoll: Int32
    private let shards: [Shard]
    private let closesOnDeinit: Bool

    /// `shards` is a power of two; `closesOnDeinit` closes the epoll descriptor when the last user lets go of it.
    init(shards: Int, closesOnDeinit: Bool) throws {
        precondition(shards > 0 && shards & (shards - 1) == 0)
        epoll = cepoll_create()
        guard epoll >= 0 else { throw SocketError.makeFailed("epoll_create1") }
        self.shards = (0..<shards).map { _ in Shard() }
        self.closesOnDeinit = closesOnDeinit
    }

    deinit { if closesOnDeinit { Glibc.close(epoll) } }

    private func shard(_ fd: Int32) -> Shard { shards[Int(UInt32(bitPattern: fd)) & (shards.count - 1)] }

    /// Watches `fd` for reading, level-triggered and not one-shot (an eventfd that wakes the waiting threads).
    func watch(_ fd: Int32) -> Bool {
        var error: Int32 = 0
        return cepoll_ctl(epoll, CEPOLL_ADD, fd, UInt32(CEPOLL_IN), &error) == 0
    }

    /// Suspends until `fd` is ready for what is asked, hangs up or fails; throws `CancellationError` if the task is
    /// cancelled first.
    func wait(_ fd: Int32, reading: Bool, writing: Bool) async throws {
        let bits = (reading ? CEPOLL_IN : 0) | (writing ? CEPOLL_OUT : 0)
        let wait = Wait(fd: fd, events: bits)
        let shard = shard(fd)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let refused: (any Error)? = shard.waits.withLock { all in
                    if wait.cancelled { return CancellationError() }
                    wait.continuation = c
                    all[fd, default: []].append(wait)
                    if let error = arm(fd, all[fd]!) {
                        wait.continuation = nil
                        remove(wait, from: &all)
                        return error
                    }
                    return nil
                }
                if let refused { c.resume(throwing: refused) }
            }
        } onCancel: {
            let c = shard.waits.withLock { all -> CheckedContinuation<Void, any Error>? in
                wait.cancelled = true
                guard let c = wait.continuation else { return nil }
                wait.continuation = nil
                remove(wait, from: &all)
                return c
            }
            c?.resume(throwing: CancellationError())
        }
    }

    private func remove(_ wait: Wait, from all: inout [Int32: [Wait]]) {
        guard var list = all[wait.fd] else { return }
        list.removeAll { $0 === wait }
        all[wait.fd] = list.isEmpty ? nil : list
    }

    /// Arms the descriptor for one report of what its waiters wait for; nil, or why epoll refused.
    private func arm(_ fd: Int32, _ list: [Wait]) -> (any Error)? {
        let wanted = list.reduce(UInt32(CEPOLL_RDHUP | CEPOLL_ONESHOT)) { $0 | $1.events }
        var error: Int32 = 0
        if cepoll_ctl(epoll, CEPOLL_MOD, fd, wanted, &error) == 0 { return nil }
        // Not yet known to epoll (a new socket, or a closed descriptor's number given to a new one).
        if error == ENOENT, cepoll_ctl(epoll, CEPOLL_ADD, fd, wanted, &error) == 0 { return nil }
        return SocketError.makeFailed("epoll_ctl")
    }

    private static let readable = UInt32(CEPOLL_IN | CEPOLL_RDHUP | CEPOLL_HUP | CEPOLL_ERR)
    private static let writable = UInt32(CEPOLL_OUT | CEPOLL_HUP | CEPOLL_ERR)

    /// Takes one report of `fd` and adds the continuations it wakes to `ready`, to be resumed outside any lock.
    func take(_ fd: Int32, _ report: UInt32, into ready: inout [CheckedContinuation<Void, any Error>]) {
        shard(fd).waits.withLock { all in
            guard let list = all[fd] else { return }
            // A hang-up or an error wakes every waiter: its next read or write says what happened.
            var still: [Wait] = []
            for w in list {
                let woken = (w.events & CEPOLL_IN != 0 && report & Self.readable != 0)
                    || (w.events & CEPOLL_OUT != 0 && report & Self.writable != 0)
                if woken, let c = w.continuation {
                    w.continuation = nil
                    ready.append(c)
                } else if w.continuation != nil {
                    still.append(w)
                }
            }
            if still.isEmpty {
                all[fd] = nil
            } else {
                all[fd] = still
                // One-shot: what is left is armed again; a waiter woken by a failed re-arm finds out from its own
                // next system call.
                if arm(fd, still) != nil {
                    for w in still { if let c = w.continuation { w.continuation = nil; ready.append(c) } }
                    all[fd] = nil
                }
            }
        }
    }
}
#endif
