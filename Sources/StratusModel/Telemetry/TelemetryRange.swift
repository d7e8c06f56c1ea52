/// The spans the Telemetry page charts, each cut into points of one width: an hour by the minute, a day by
/// 15 minutes, a week by the hour.
public enum TelemetryRange: String, Sendable, CaseIterable {
    case hour, day, week

    /// The whole span, in minutes.
    public var minutes: Int64 {
        switch self {
        case .hour: 60
        case .day: 1_440
        case .week: 10_080
        }
    }

    /// Minutes per point.
    public var step: Int64 {
        switch self {
        case .hour: 1
        case .day: 15
        case .week: 60
        }
    }

    public var label: String {
        switch self {
        case .hour: "Last hour"
        case .day: "Last day"
        case .week: "Last week"
        }
    }
}
