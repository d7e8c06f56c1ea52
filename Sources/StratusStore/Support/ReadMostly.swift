import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A value that every request reads and that is rarely replaced (an environment's catalog): readers share a
/// read-write lock and never wait for one another. Behind a `Mutex` they queued: on a busy 2-core server, a reader
/// preempted inside the lock left the others spinning, then sleeping in the kernel, one after another.
///
/// Writers are preferred, so a steady stream of readers cannot keep a new catalog out.
final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        #if canImport(Glibc)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        #endif
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Reads under the shared lock; `body` must not replace the value (it cannot) nor take this lock again.
    func read<T>(_ body: (Value) throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(value)
    }

    /// Changes the value under the exclusive lock.
    func write<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body(&value)
    }
}
