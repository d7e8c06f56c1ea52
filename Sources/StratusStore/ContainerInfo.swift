import StratusModel

public struct ContainerInfo: Sendable, Hashable {
    public var id: ContainerID
    /// Milliseconds since 1970.
    public var createdAt: Int64
}
