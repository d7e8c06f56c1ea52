/// The roles one administrator holds: per container, and over every container (`everywhere`). In a container the
/// higher of its own role and `everywhere` counts; outside any container, `everywhere` alone.
public struct AdminRoles: Sendable, Equatable {
    public var everywhere: AdminRole?
    public var containers: [ContainerID: AdminRole]

    public init(everywhere: AdminRole? = nil, containers: [ContainerID: AdminRole] = [:]) {
        self.everywhere = everywhere
        self.containers = containers
    }

    /// Every role: an owner of all containers (the server-wide admin token's).
    public static let owner = AdminRoles(everywhere: .owner)

    /// The role that counts in `container` (nil: outside any container).
    public func role(in container: ContainerID?) -> AdminRole? {
        guard let container else { return everywhere }
        return [everywhere, containers[container]].compactMap { $0 }.max()
    }

    /// Whether `action` in `container` is allowed. Administrators are the owners' of every container only.
    public func allows(_ action: AdminAction, in container: ContainerID?) -> Bool {
        let role = action == .manageAdministrators || action == .serverWide ? everywhere : role(in: container)
        return role?.allows(action) ?? false
    }

    /// Whether the administrator holds any role at all.
    public var isEmpty: Bool { everywhere == nil && containers.isEmpty }

    /// `owner (all containers), developer in iCloud.com.example.A`, for lists.
    public var spelled: String {
        let each = (everywhere.map { ["\($0.rawValue) (all containers)"] } ?? [])
            + containers.sorted { $0.key < $1.key }.map { "\($0.value.rawValue) in \($0.key.rawValue)" }
        return each.isEmpty ? "no role" : each.joined(separator: ", ")
    }
}
