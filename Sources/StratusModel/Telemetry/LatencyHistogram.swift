/// Request durations counted into fixed buckets, so that minutes add up (in memory and in SQL) and percentiles
/// of any span come from the sum: a percentile is reported as the upper bound of the bucket it falls in,
/// interpolated within the bucket.
public struct LatencyHistogram: Sendable, Hashable {
    /// Upper bounds in microseconds; the last bucket holds everything slower.
    public static let bounds: [Int64] = [250, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000,
                                         500_000,
                                          1_000_000, 2_000_000, 5_000_000, 10_000_000, 30_000_000]
    public var counts: [Int64]

    public init(counts: [Int64] = Array(repeating: 0, count: LatencyHistogram.bounds.count)) { self.counts = counts }

    public var total: Int64 { counts.reduce(0, +) }

    public mutating func add(microseconds: Int64) {
        let i = Self.bounds.firstIndex(where: { microseconds <= $0 }) ?? Self.bounds.count - 1
        counts[i] += 1
    }

    public mutating func add(_ other: LatencyHistogram) {
        for i in counts.indices { counts[i] += other.counts[i] }
    }

    /// The `q` quantile (0…1) in milliseconds, nil without requests.
    public func quantile(_ q: Double) -> Double? {
        let n = total
        guard n > 0 else { return nil }
        let rank = max(1, (q * Double(n)).rounded(.up))
        var seen: Int64 = 0
        for (i, c) in counts.enumerated() where c > 0 {
            if Double(seen + c) >= rank {
                let low = i == 0 ? 0 : Double(Self.bounds[i - 1]), high = Double(Self.bounds[i])
                let within = (rank - Double(seen)) / Double(c)
                return (low + (high - low) * within) / 1000
            }
            seen += c
        }
        return Double(Self.bounds.last!) / 1000
    }
}
