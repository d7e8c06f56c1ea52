import StratusModel

/// What a console route does, as administrators' roles judge it; each route says it (`ScopedRoutes`,
/// `SignedInRoutes`), and `Console` checks it on every request, page, form and JSON answer alike, before the page
/// runs. Hiding a button is never the check.
enum ConsoleNeed: Sendable {
    /// A page: any role in its container (outside a container, any role at all).
    case read
    /// Users' data in the page's environment (acting as a user).
    case readUserData
    /// A change in the page's environment.
    case change
    /// A change to the whole container (deploy, delete, how its users sign in).
    case changeContainer
    /// A change outside any container (making one).
    case serverWide
    /// Administrators, their roles and tokens.
    case administrators
    /// The administrator's own preferences (the colour scheme): every signed-in administrator.
    case personal
    /// The second step of a sign-in: the one page a session that waits for it reaches.
    case secondStep
    /// Enrolling a second factor: reached before any page where the server requires one.
    case enrolment

    /// The action roles judge, in `scope`; nil for what every administrator may do.
    func action(in scope: ConsoleScope?) -> AdminAction? {
        let environment = scope?.environment ?? .development
        return switch self {
        case .read: .read
        case .readUserData: .readUserData(environment)
        case .change: .change(environment)
        case .changeContainer: .changeContainer
        case .serverWide: .serverWide
        case .administrators: .manageAdministrators
        case .personal, .secondStep, .enrolment: nil
        }
    }

    /// Whether `roles` allow it in `scope`.
    func allowed(_ roles: AdminRoles, in scope: ConsoleScope?) -> Bool {
        guard let action = action(in: scope) else { return true }
        if scope == nil, action == .read { return !roles.isEmpty }
        return roles.allows(action, in: scope?.container)
    }
}
