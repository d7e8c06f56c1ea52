/// A bearer token for the admin API (`/-/admin`), for automation such as CI: it acts with exactly one role, in one
/// container or in every container, until it expires or is revoked. Its secret is shown once, when it is made, and
/// kept only as a hash.
public struct AdminToken: Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// Nil: every container.
    public var container: ContainerID?
    public var role: AdminRole
    /// Milliseconds since 1970; nil: it never expires.
    public var createdAt: Int64, expiresAt: Int64?
    public var createdBy: String

    public init(id: Int64, name: String, container: ContainerID?, role: AdminRole, createdAt: Int64, expiresAt: Int64?,
                createdBy: String) {
        (self.id, self.name, self.container, self.role) = (id, name, container, role)
        (self.createdAt, self.expiresAt, self.createdBy) = (createdAt, expiresAt, createdBy)
    }

    /// The roles it acts with.
    public var roles: AdminRoles {
        container.map { AdminRoles(containers: [$0: role]) } ?? AdminRoles(everywhere: role)
    }
}
