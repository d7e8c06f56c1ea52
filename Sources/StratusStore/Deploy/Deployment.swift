import StratusModel

/// One deploy of the Development schema to Production: when, by whom, what changed.
public struct Deployment: Sendable, Hashable {
    public var id: Int64
    /// Milliseconds since 1970.
    public var deployedAt: Int64
    public var deployedBy: String
    /// Each change as a sentence.
    public var changes: [String]
}
