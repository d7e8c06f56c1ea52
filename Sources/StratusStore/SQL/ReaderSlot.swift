import GRDB
import Synchronization

/// One read-only connection of a `GatedDatabase`, opened when first needed; only the read that claimed it touches it.
final class ReaderSlot: @unchecked Sendable {
    private let busy = Atomic<Bool>(false)
    /// Read and set only between a successful `claim()` and its `release()`.
    var connection: DatabaseQueue?

    func claim() -> Bool { busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged }
    func release() { busy.store(false, ordering: .releasing) }
}
