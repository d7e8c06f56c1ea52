/// One change made through the console: who, when, what, where.
public struct AuditEntry: Sendable, Hashable {
    /// Milliseconds since 1970.
    public var at: Int64
    public var admin, action: String
    public var container, environment: String?
    public var detail: String

    public init(at: Int64, admin: String, action: String, container: String?, environment: String?, detail: String) {
        self.at = at
        self.admin = admin
        self.action = action
        self.container = container
        self.environment = environment
        self.detail = detail
    }
}
