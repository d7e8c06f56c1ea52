/// When Stratus builds a composite index for a query shape by itself, and how many it keeps
/// (`ServerConfig.autoIndexes`).
public struct AutoIndexPolicy: Sendable, Hashable {
    /// Off: shapes are still counted, no index is built.
    public var enabled: Bool
    /// A shape must have run this many times…
    public var minimumCalls: Int
    /// … and cost this many SQLite steps per row returned on average (a query that reads and sorts every match costs
    /// thousands; one an index serves in order, a few dozen).
    public var minimumStepsPerRow: Double
    /// At most this many automatic indexes per record type, and per environment.
    public var maximumPerType, maximumPerEnvironment: Int
    /// Unpinned automatic indexes unused this long are dropped (milliseconds).
    public var dropUnusedAfter: Int64
    /// All automatic indexes of an environment together may take at most this much disk (estimated; bytes).
    public var maximumTotalBytes: Int64
    /// A build step holds the writer about this long (milliseconds); steps grow or shrink to it.
    public var stepMilliseconds: Double
    /// A build that failed (disk full, say) is tried again after this long (milliseconds).
    public var retryFailedAfter: Int64

    public init(enabled: Bool = true, minimumCalls: Int = 50, minimumStepsPerRow: Double = 200, maximumPerType: Int = 8,
                maximumPerEnvironment: Int = 32, dropUnusedAfter: Int64 = 7 * 86_400_000, maximumTotalBytes: Int64 = 1 << 30,
                stepMilliseconds: Double = 20, retryFailedAfter: Int64 = 3_600_000) {
        self.enabled = enabled
        self.minimumCalls = minimumCalls
        self.minimumStepsPerRow = minimumStepsPerRow
        self.maximumPerType = maximumPerType
        self.maximumPerEnvironment = maximumPerEnvironment
        self.dropUnusedAfter = dropUnusedAfter
        self.maximumTotalBytes = maximumTotalBytes
        self.stepMilliseconds = stepMilliseconds
        self.retryFailedAfter = retryFailedAfter
    }
}
