import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A value kept in a few parts, each behind its own lock, that a thread always adds to the same part of: what every
/// request adds to (the request log's queue, telemetry's counts, the metrics) no longer meets in one lock, where on
/// a busy 2-core server a thread preempted inside it left the others spinning. Readers put the parts together.
public final class ThreadShards<Part: Sendable>: Sendable {
    private final class Box: Sendable {
        let value: Mutex<Part>
        init(_ value: Part) { self.value = Mutex(value) }
    }
    private let parts: [Box]

    public init(count: Int = ThreadShards.defaultCount, _ make: () -> Part) {
        parts = (0..<max(1, count)).map { _ in Box(make()) }
    }

    /// Parts enough for the server's threads (two per core, see `BlockingWork`) to rarely share one.
    public static var defaultCount: Int { 8 }

    public var count: Int { parts.count }

    /// Changes the calling thread's part.
    public func withLock<T: Sendable>(_ body: (inout Part) -> T) -> T {
        parts[ThreadIndex.current % parts.count].value.withLock { body(&$0) }
    }

    /// Changes each part in turn (a reader taking what was added, a flush emptying them).
    public func forEach(_ body: (inout Part) -> Void) {
        for p in parts { p.value.withLock { body(&$0) } }
    }
}

/// A small number per thread, handed out in the order threads first ask: threads that start together get different
/// ones, which a hash of their identity would not promise.
enum ThreadIndex {
    private static let next = Atomic<Int>(0)
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: Int {
        if let stored = pthread_getspecific(key) { return Int(bitPattern: stored) - 1 }
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue & 0xFFFF
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: index + 1))
        return index
    }
}
