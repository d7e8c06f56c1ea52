/// Rows of inserts gathered per statement head and sent many rows per statement, where each statement has a fixed
/// cost on the server (PostgreSQL): a write batch's new records and their full-text, location and list entries.
struct GatheredInserts {
    private struct Statement {
        var tuple, tail: String
        var columns: Int
        var arguments: [SQLValue] = []
    }

    private var statements: [String: Statement] = [:]

    var isEmpty: Bool { statements.isEmpty }

    /// Rows (one or more tuples' worth of `arguments`) for the statement that starts with `head`.
    mutating func add(_ head: String, _ tuple: String, tail: String = "", _ arguments: [SQLValue]) {
        let columns = tuple.utf8.reduce(0) { $1 == UInt8(ascii: "?") ? $0 + 1 : $0 }
        statements[head, default: Statement(tuple: tuple, tail: tail, columns: columns)].arguments += arguments
    }

    /// Queues what is gathered (at most 500 rows, and 30,000 arguments, per statement) and forgets it.
    mutating func send(_ s: any SQLSession) throws {
        guard !statements.isEmpty else { return }
        for (head, g) in statements.sorted(by: { $0.key < $1.key }) {
            let perStatement = max(1, min(500, 30_000 / max(1, g.columns))) * g.columns
            var start = 0
            while start < g.arguments.count {
                let end = min(start + perStatement, g.arguments.count)
                let rows = (end - start) / g.columns
                try s.enqueue(head + Array(repeating: g.tuple, count: rows).joined(separator: ", ") + g.tail,
                              Array(g.arguments[start..<end]))
                start = end
            }
        }
        statements.removeAll()
    }
}
