/// A console administrator.
public struct Admin: Sendable, Hashable {
    public var id: Int64
    public var email: String
    public init(id: Int64, email: String) { self.id = id; self.email = email }
}
