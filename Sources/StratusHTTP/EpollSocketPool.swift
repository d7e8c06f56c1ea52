#if os(Linux)
import CEpoll
import FlyingSocks
import Foundation
import Glibc
import Synchronization

/// The event loop every socket of the process's servers waits on: one thread of its own parked in `epoll_wait`,
/// which resumes the waiting task itself.
///
/// FlyingSocks' own pool is an actor: a ready socket went from a dispatch queue's thread (its `epoll_wait`) to the
/// actor, and from the actor to the connection's task — two hops over the two cooperative threads of a 2-core
/// machine for every read that had to wait — and each wait added the descriptor to epoll and deleted it again
/// (two system calls). Here a wait arms the descriptor once (`EPOLLONESHOT`, level-triggered, so data that came
/// before the arm still wakes it) and the loop's thread resumes the continuation directly.
final class EpollSocketPool: AsyncSocketPool {
    /// One task waiting on one descriptor. Touched only under the pool's lock.
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
    /// shard's lock, so that the loop cannot take the report before the wait is listed; with one lock for every
    /// socket, 64 connections' waits queued behind each other's system calls.
    private final class Shard: Sendable {
        let waits = Mutex<[Int32: [Wait]]>([:])
    }

    private let epoll: Int32
    private let shards = (0..<64).map { _ in Shard() }
    private func waits(_ fd: Int32) -> Shard { shards[Int(UInt32(bitPattern: fd) & 63)] }
    private let started = Mutex(false)

    init() throws {
        epoll = cepoll_create()
        guard epoll >= 0 else { throw SocketError.makeFailed("epoll_create1") }
    }

    func prepare() async throws { start() }

    /// The loop runs on a thread of its own, started once; there is nothing to run in the caller's task.
    func run() async throws { start() }

    private func start() {
        guard started.withLock({ s in defer { s = true }; return !s }) else { return }
        let thread = Thread { [self] in loop() }
        thread.name = "stratus-epoll"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    func suspendSocket(_ socket: Socket, untilReadyFor events: Socket.Events) async throws {
        try await wait(socket.file.rawValue, reading: events.contains(.read), writing: events.contains(.write))
    }

    /// Suspends until `fd` is ready for what is asked, hangs up or fails; throws `CancellationError` if the task is
    /// cancelled first.
    func wait(_ fd: Int32, reading: Bool, writing: Bool) async throws {
        let bits = (reading ? CEPOLL_IN : 0) | (writing ? CEPOLL_OUT : 0)
        let wait = Wait(fd: fd, events: bits)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let refused: (any Error)? = waits(fd).waits.withLock { all in
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
            let c = waits(fd).waits.withLock { all -> CheckedContinuation<Void, any Error>? in
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

    private func loop() {
        let capacity: Int32 = 256
        var fds = [Int32](repeating: 0, count: Int(capacity))
        var reports = [UInt32](repeating: 0, count: Int(capacity))
        var ready: [CheckedContinuation<Void, any Error>] = []
        let readable = UInt32(CEPOLL_IN | CEPOLL_RDHUP | CEPOLL_HUP | CEPOLL_ERR)
        let writable = UInt32(CEPOLL_OUT | CEPOLL_HUP | CEPOLL_ERR)
        let wantsRead = CEPOLL_IN, wantsWrite = CEPOLL_OUT
        while true {
            var error: Int32 = 0
            let n = cepoll_wait(epoll, &fds, &reports, capacity, -1, &error)
            if n < 0 { continue }  // EINTR; epoll_wait fails otherwise only for a bad descriptor, which this one is not
            for i in 0..<Int(n) {
                let fd = fds[i], report = reports[i]
                waits(fd).waits.withLock { all in
                    guard let list = all[fd] else { return }
                    // A hang-up or an error wakes every waiter: its next read or write says what happened.
                    var still: [Wait] = []
                    for w in list {
                        let woken = (w.events & wantsRead != 0 && report & readable != 0) || (w.events & wantsWrite != 0 && report & writable != 0)
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
                        // One-shot: what is left is armed again.
                        if arm(fd, still) != nil {
                            for w in still { if let c = w.continuation { w.continuation = nil; ready.append(c) } }
                            all[fd] = nil
                        }
                    }
                }
            }
            // Resumed outside the lock; a waiter woken by a failed re-arm finds out from its own next system call.
            for c in ready { c.resume() }
            ready.removeAll(keepingCapacity: true)
        }
    }
}
#endif
