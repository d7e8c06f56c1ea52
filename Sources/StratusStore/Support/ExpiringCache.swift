import Foundation
import Synchronization

/// A small in-memory cache whose entries live a short, fixed time: credential and role lookups that every API
/// request makes. Changes made in this process clear it at once (`removeAll`); the lifetime bounds how long a
/// change made by another process (`stratus token revoke` while the server runs) can go unseen.
final class ExpiringCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Read by every request, replaced on a miss: readers share the lock (see `ReadMostly`).
    private let entries = ReadMostly<[Key: (value: Value, until: UInt64)]>([:])
    private let lifetimeNanos: Atomic<UInt64>
    private let capacity: Int

    init(lifetime: Duration = .seconds(1), capacity: Int = 4096) {
        lifetimeNanos = Atomic(Self.nanos(lifetime))
        self.capacity = capacity
    }

    /// How long an entry lives from now on. Tests lengthen it to tell a change seen through a notice from one
    /// seen by expiry.
    var lifetime: Duration {
        get { .nanoseconds(Int64(lifetimeNanos.load(ordering: .relaxed))) }
        set { lifetimeNanos.store(Self.nanos(newValue), ordering: .relaxed) }
    }

    private static func nanos(_ d: Duration) -> UInt64 {
        UInt64(d.components.seconds) * 1_000_000_000 + UInt64(d.components.attoseconds / 1_000_000_000)
    }

    func value(for key: Key) -> Value? {
        let now = DispatchTime.now().uptimeNanoseconds
        // An expired entry stays until `set` replaces it (or the cache starts over): reads never write.
        return entries.read { e in
            guard let hit = e[key], hit.until > now else { return nil }
            return hit.value
        }
    }

    func set(_ value: Value, for key: Key) {
        let until = DispatchTime.now().uptimeNanoseconds + lifetimeNanos.load(ordering: .relaxed)
        entries.write { e in
            // Many distinct keys within one lifetime (a scan of made-up tokens): start over rather than grow.
            if e.count >= capacity { e.removeAll(keepingCapacity: true) }
            e[key] = (value, until)
        }
    }

    func removeAll() { entries.write { $0.removeAll() } }
}
