/// What the Telemetry page draws for one container environment over one range: a point per step, oldest first.
public struct TelemetryReport: Sendable {
    public struct Point: Sendable {
        /// The first minute of the point (minutes since 1970).
        public var minute: Int64
        public var requests: Int64 = 0
        public var errors: Int64 = 0
        /// Error answers by CloudKit error code; injected faults under their code too, counted apart in `injected`.
        public var errorsByCode: [String: Int64] = [:]
        public var injected: Int64 = 0
        public var latency: [TelemetryOperation: LatencyHistogram] = [:]
        /// The last sample of the point, when one was taken.
        public var records, bytes: Int64?

        public init(minute: Int64) { self.minute = minute }
    }

    public var range: TelemetryRange
    public var points: [Point]

    public init(range: TelemetryRange, points: [Point]) {
        self.range = range
        self.points = points
    }

    /// Every error code seen in the range, most frequent first.
    public var errorCodes: [String] {
        var totals: [String: Int64] = [:]
        for p in points { for (k, v) in p.errorsByCode { totals[k, default: 0] += v } }
        return totals.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
    }
}
