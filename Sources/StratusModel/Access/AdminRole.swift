/// What an administrator may do in a container (or in every container), as a developer team's roles decide in
/// CloudKit Console. Ordered: each role may do all that the ones below it may.
public enum AdminRole: String, Sendable, CaseIterable, Comparable {
    /// Reads every page its containers allow; changes nothing; sees no secrets and no Production user data.
    case viewer
    /// Development freely (schema, records, faults, reset, tokens); Production read-only, without its users' data.
    case developer
    /// Everything in its containers except administrators.
    case admin
    /// Everything, including administrators, roles and server-wide settings.
    case owner

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: AdminRole, b: AdminRole) -> Bool { a.rank < b.rank }

    /// Whether this role may do `action`.
    public func allows(_ action: AdminAction) -> Bool {
        switch action {
        case .read, .readUserData(.development): true
        case .change(.development): self >= .developer
        case .readUserData, .change, .changeContainer, .serverWide: self >= .admin
        case .manageAdministrators: self == .owner
        }
    }

    /// The least role that may do `action`.
    public static func needed(for action: AdminAction) -> AdminRole {
        allCases.first { $0.allows(action) } ?? .owner
    }

    /// `viewer`… read back; BAD_REQUEST names the roles.
    public init(parsing text: String) throws(StratusError) {
        guard let role = AdminRole(rawValue: text.lowercased()) else {
            throw .badRequest("'\(text.prefix(40))' is not a role: owner, admin, developer or viewer")
        }
        self = role
    }
}

/// What a console request, an admin-API call or a command does, as roles judge it.
public enum AdminAction: Sendable, Equatable {
    /// Any page, form-free.
    case read
    /// Users' data (emails, private and shared databases, acting as a user) in one environment.
    case readUserData(ContainerEnvironment)
    /// A change in one environment.
    case change(ContainerEnvironment)
    /// A change to the whole container: deploying to Production, deleting it, how its users sign in.
    case changeContainer
    /// A change outside any container (making containers).
    case serverWide
    /// Administrators, their roles and tokens.
    case manageAdministrators
}
