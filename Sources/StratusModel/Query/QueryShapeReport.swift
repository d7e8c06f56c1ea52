/// One query shape as the console's Query shapes page shows it: how often it ran, how long it took, how much work
/// each returned row cost, and how SQLite serves it.
public struct QueryShapeReport: Sendable, Hashable {
    public var shape, recordType: String
    public var calls: Int
    public var p50Milliseconds, p99Milliseconds, meanMilliseconds: Double
    /// SQLite virtual-machine steps per row returned: a few dozen when an index hands rows over in order, thousands
    /// when the query reads and sorts every match.
    public var stepsPerRow: Double
    public var lastAt: Int64
    /// SQLite's `EXPLAIN QUERY PLAN` of the shape's statement, one line per step.
    public var plan: [String]

    public init(shape: String, recordType: String, calls: Int, p50Milliseconds: Double, p99Milliseconds: Double,
                meanMilliseconds: Double,
                stepsPerRow: Double, lastAt: Int64, plan: [String]) {
        self.shape = shape
        self.recordType = recordType
        self.calls = calls
        self.p50Milliseconds = p50Milliseconds
        self.p99Milliseconds = p99Milliseconds
        self.meanMilliseconds = meanMilliseconds
        self.stepsPerRow = stepsPerRow
        self.lastAt = lastAt
        self.plan = plan
    }

    /// The index the plan uses, or nil when it scans or sorts without one.
    public var index: String? { Self.index(in: plan) }

    /// The first index an `EXPLAIN QUERY PLAN` names. An automatic index's B-tree is `<name>_k` on its index
    /// table (see `AutoIndex`): it is given as `<name>`, the name the console and the CLI know it by.
    public static func index(in plan: [String]) -> String? {
        for line in plan {
            if let r = line.range(of: "USING COVERING INDEX ") ?? line.range(of: "USING INDEX ") {
                let name = line[r.upperBound...].prefix { $0 != " " }
                return String(name.contains("_auto_") && name.hasSuffix("_k") ? name.dropLast(2) : name)
            }
        }
        return nil
    }

    /// Whether SQLite sorts the matches itself (no index hands them over in order).
    public var sorts: Bool { plan.contains { $0.contains("USE TEMP B-TREE FOR ORDER BY") } }
}
