import Foundation
import GRDBSQLite
import Synchronization

/// One memory budget for every SQLite page cache in the process (`stratus serve --cache-mb N`).
///
/// SQLite's soft heap limit is process-wide: past it, every connection's page cache recycles its own least recently
/// used pages instead of growing. So the writer and the readers of all environments share the budget as their load
/// asks, instead of each holding a fixed slice (five 32 MB caches made a loaded server's memory; five 8 MB ones
/// left a 1M-record database reading from disk). Each connection may grow to the whole budget.
///
/// The default is 1/128 of the machine's memory, between 32 and 128 MB (128 MB on a 24 GB machine), meant to keep a
/// serving process near the console's 200 MB figure; a bigger budget pays off when the operating system does not
/// keep the database files cached itself. Memory SQLite's sorter takes (CREATE INDEX, ORDER BY without an index) is
/// not bounded by it.
public enum CacheBudget {
    public static let defaultMegabytes: Int = Swift.min(128, Swift.max(32,
                                                                       Int(ProcessInfo.processInfo.physicalMemory / 1_048_576 / 128)))
    private static let current = Mutex<Int>(defaultMegabytes)
    private static let applied = Mutex(false)

    /// The budget in force, in megabytes.
    public static var megabytes: Int { current.withLock { $0 } }

    /// Sets the budget (at least 4 MB). Connections opened afterwards size their caches to it; the limit itself
    /// applies at once to every connection.
    public static func apply(megabytes: Int) {
        let mb = Swift.max(4, megabytes)
        current.withLock { $0 = mb }
        applied.withLock { $0 = true }
        sqlite3_soft_heap_limit64(Int64(mb) * 1_048_576)
    }

    /// Applies the default unless a budget was set already (stores opened by tools and tests).
    static func applyDefaultOnce() {
        if applied.withLock({ $0 }) { return }
        apply(megabytes: defaultMegabytes)
    }

    /// `PRAGMA cache_size` for a new connection (negative: KiB).
    static var cacheSizePragma: String { "PRAGMA cache_size = -\(megabytes * 1024)" }
}
