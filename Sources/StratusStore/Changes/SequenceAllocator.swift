import StratusModel

/// Hands out one database's change sequence values from memory during one write transaction and stores its
/// counter once at the end, so a batch of 200 records costs one counter update, not 200. Made, it has locked the
/// counter's row (see `ChangeSequence.lock`) for the rest of the transaction.
struct SequenceAllocator {
    let database: DatabaseID
    private(set) var nextValue: Int64
    /// The first value not yet stored in the counter.
    private var start: Int64
    /// Whether the transaction may change the whole environment (SQLite's one writer, or a PostgreSQL write holding
    /// the environment's write lock alone); a schema change in a write that may not throws `NeedsExclusiveWrite`.
    var wholeEnvironment = true

    /// `writeLock`: see `ChangeSequence.lock`.
    init(_ s: any SQLSession, _ database: DatabaseID, writeLock: String? = nil) throws {
        self.database = database
        nextValue = try ChangeSequence.lock(s, database, writeLock: writeLock) + 1
        start = nextValue
    }

    mutating func next() -> Int64 { defer { nextValue += 1 }; return nextValue }

    /// Stores the counter, once for the values handed out since it was last stored.
    mutating func save(_ s: any SQLSession) throws {
        guard nextValue != start else { return }
        try ChangeSequence.store(nextValue - 1, database, s)
        start = nextValue
    }
}
