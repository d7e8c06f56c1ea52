
/// The environment's monotonic change counter. Sync tokens and change tags come from it, so it must never
/// go back, even when the rows that carried its latest values are deleted: it lives in `meta`, not in a max().
enum ChangeSequence {
    static func next(_ s: any SQLSession) throws -> Int64 {
        try s.int64("UPDATE meta SET value = value + 1 WHERE key = 'next_seq' RETURNING value - 1") ?? 1
    }

    /// The last value handed out (0 if none).
    static func current(_ s: any SQLSession) throws -> Int64 {
        (try s.int64("SELECT value FROM meta WHERE key = 'next_seq'") ?? 1) - 1
    }

    /// CloudKit's change tags are short opaque strings; base 36 of the sequence keeps them short.
    static func changeTag(_ seq: Int64) -> String { String(seq, radix: 36) }
}

/// Hands out sequence values from memory during one write transaction and stores the counter once at
/// the end, so a batch of 200 records costs one counter update, not 200.
struct SequenceAllocator {
    private(set) var nextValue: Int64
    private let start: Int64

    init(_ s: any SQLSession) throws {
        nextValue = try ChangeSequence.current(s) + 1
        start = nextValue
    }

    mutating func next() -> Int64 { defer { nextValue += 1 }; return nextValue }

    func save(_ s: any SQLSession) throws {
        guard nextValue != start else { return }
        try s.enqueue("UPDATE meta SET value = ? WHERE key = 'next_seq'", nextValue)
    }
}
