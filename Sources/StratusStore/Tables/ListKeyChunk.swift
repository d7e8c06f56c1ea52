import Foundation

/// A list field's side-table keys on their way in when the table is filled from existing rows (an index build,
/// the end of a bulk load): up to `capacity` keys are held, then written sorted by (value, record_id), so the
/// B-tree is filled in key order, page after page, instead of one random page per key. Bounded, so memory does
/// not grow with the number of records.
struct ListKeyChunk {
    let table: String
    var keys: [(SQLValue, Int64)] = []
    let capacity: Int
    /// About 16 MB of keys.
    static let defaultCapacity = 1 << 18
    /// Rows per INSERT (SQLite).
    static let rowsPerStatement = 500

    /// Whether the table was empty and every flush ends at a record's last key (as `createStructures` flushes): then
    /// no key of a flush is stored already, and PostgreSQL takes each chunk with one COPY. Otherwise each INSERT
    /// skips what is there.
    let copies: Bool

    init(table: String, capacity: Int = Self.defaultCapacity, copies: Bool = false) {
        self.table = table
        self.capacity = capacity
        self.copies = copies
        keys.reserveCapacity(capacity)
    }

    var isFull: Bool { keys.count >= capacity }

    mutating func flush(_ s: any SQLSession) throws {
        guard !keys.isEmpty else { return }
        keys.sort { a, b in a.0 == b.0 ? a.1 < b.1 : Self.precedes(a.0, b.0) }
        defer { keys.removeAll(keepingCapacity: true) }
        // PostgreSQL: one COPY (see `copies`: the only duplicates are a record's own repeated values, which sorting has
        // put side by side); thousands of INSERTs were most of a restore's time.
        if copies, let pg = s as? PostgresSession, let kinds = try PostgresCopy.kinds(table, ["value", "record_id"],
                pg) {
            try PostgresCopy.write(table, ["value", "record_id"], kinds, pg) { add in
                var last: (SQLValue, Int64)?
                for key in keys where last.map({ $0.0 != key.0 || $0.1 != key.1 }) ?? true {
                    try add([key.0, .int64(key.1)])
                    last = key
                }
            }
            return
        }
        let full = Self.insert(table, rows: Self.rowsPerStatement)
        var arguments: [SQLValue] = []
        arguments.reserveCapacity(Self.rowsPerStatement * 2)
        for start in stride(from: 0, to: keys.count, by: Self.rowsPerStatement) {
            let end = min(start + Self.rowsPerStatement, keys.count)
            arguments.removeAll(keepingCapacity: true)
            for (value, id) in keys[start..<end] { arguments.append(value); arguments.append(.int64(id)) }
            try s.execute(end - start == Self.rowsPerStatement ? full : Self.insert(table, rows: end - start),
                          arguments)
        }
    }

    static func insert(_ table: String, rows: Int) -> String {
        "INSERT INTO \(table)(value, record_id) VALUES " + Array(repeating: "(?, ?)",
                                                                 count: rows).joined(separator: ", ") + " ON CONFLICT DO NOTHING"
    }

    /// The side table's order for one field's keys (all of one kind): numbers by value, text and bytes by their
    /// bytes, as SQLite's BINARY collation and PostgreSQL's C-like byte order of ASCII keys put them. Only the
    /// order of the writes depends on it, never what is stored.
    static func precedes(_ a: SQLValue, _ b: SQLValue) -> Bool {
        switch (a, b) {
        case (.int64(let x), .int64(let y)): x < y
        case (.double(let x), .double(let y)): x < y
        case (.text(let x), .text(let y)): bytesPrecede(x, y)
        case (.blob(let x), .blob(let y)): x.lexicographicallyPrecedes(y)
        default: rank(a) < rank(b)
        }
    }

    /// Byte order of two strings by `memcmp` over their UTF-8 in place, where the generic comparison of their UTF-8
    /// views goes a byte at a time and would be most of the time spent sorting a chunk.
    static func bytesPrecede(_ x: String, _ y: String) -> Bool {
        let inPlace = x.utf8.withContiguousStorageIfAvailable { a in
            y.utf8.withContiguousStorageIfAvailable { b -> Bool in
                let n = min(a.count, b.count)
                let c = n == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, n)
                return c != 0 ? c < 0 : a.count < b.count
            }
        }
        if let inPlace, let result = inPlace { return result }
        return x.utf8.lexicographicallyPrecedes(y.utf8)
    }

    private static func rank(_ v: SQLValue) -> Int {
        switch v {
        case .null: 0
        case .int64, .double: 1
        case .text: 2
        case .blob: 3
        }
    }
}
