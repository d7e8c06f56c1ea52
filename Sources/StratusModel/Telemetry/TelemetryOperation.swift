/// The kinds of CloudKit API request the Telemetry page charts latency for (CloudKit's Telemetry groups the same way).
public enum TelemetryOperation: String, Sendable, CaseIterable {
    case query, lookup, modify, changes, assets, other

    /// The kind of an operation path as the request log keeps it (`records/query`, `zones/changes`, …); a path
    /// that names no operation is `.other`.
    public init(path: String) {
        self = CloudKitOperation(rawValue: path)?.telemetry ?? .other
    }
}
