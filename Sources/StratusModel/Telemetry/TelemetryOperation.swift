/// The kinds of CloudKit API request the Telemetry page charts latency for (CloudKit's Telemetry groups the same way).
public enum TelemetryOperation: String, Sendable, CaseIterable {
    case query, lookup, modify, changes, assets, other

    /// The kind of an operation path (`records/query`, `zones/changes`, `assets/upload`, …).
    public init(path: String) {
        switch path {
        case "records/query": self = .query
        case "records/lookup", "zones/lookup", "subscriptions/lookup", "users/lookup/email", "users/lookup/id": self = .lookup
        case "records/modify", "zones/modify", "subscriptions/modify": self = .modify
        case "records/changes", "zones/changes", "changes/database", "changes/zone": self = .changes
        default: self = path.hasPrefix("assets/") ? .assets : .other
        }
    }
}
