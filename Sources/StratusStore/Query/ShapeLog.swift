import Foundation
import StratusModel
import Synchronization

/// Each query shape's calls and costs since the last flush, kept in memory so that counting costs a query one
/// dictionary update (a read never writes), and written to the environment's `query_shapes` table by the server's
/// query-shape keeper once a minute and when the environment closes (see `QueryShapeStore.recordQueryShapes`).
final class ShapeLog: Sendable {
    struct Stats: Sendable {
        var calls = 0
        var micros = 0
        /// SQLite virtual-machine steps: the work a query did, whatever its plan (rows examined, sorted, skipped).
        var steps = 0
        var rows = 0
        /// The latest durations (µs), for p50 and p99: a ring of 256.
        var samples: [Int] = []
        var next = 0
        /// The statement one call ran, for `EXPLAIN QUERY PLAN` on the console's page.
        var sql = ""

        mutating func add(micros: Int, steps: Int, rows: Int, sql: String) {
            calls += 1
            self.micros += micros
            self.steps += steps
            self.rows += rows
            self.sql = sql
            if samples.count < 256 { samples.append(micros) } else { samples[next] = micros; next = (next + 1) % 256 }
        }

        func percentile(_ p: Double) -> Int {
            guard !samples.isEmpty else { return 0 }
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
        }
    }

    private let table = Mutex<[QueryShape: Stats]>([:])
    private let flushedAt = Mutex<ContinuousClock.Instant>(.now)
    static let flushInterval: Duration = .seconds(60)
    /// A workload of many distinct shapes (a client generating queries) keeps at most this many in memory.
    static let maximumShapes = 1_000

    func record(_ shape: QueryShape, micros: Int, steps: Int, rows: Int, sql: String) {
        table.withLock { t in
            if t[shape] == nil, t.count >= Self.maximumShapes { return }
            t[shape, default: Stats()].add(micros: micros, steps: steps, rows: rows, sql: sql)
        }
    }

    /// What was gathered since the last flush, left in place: for reports that must include it without writing.
    func peek() -> [QueryShape: Stats] { table.withLock { $0 } }

    /// What was gathered since the last flush, emptied; nil when no flush is due (unless `force`).
    func take(force: Bool = false) -> [QueryShape: Stats]? {
        let due = flushedAt.withLock { at -> Bool in
            guard force || ContinuousClock.now - at >= Self.flushInterval else { return false }
            at = .now
            return true
        }
        guard due else { return nil }
        return table.withLock { t in defer { t.removeAll() }; return t }
    }
}
