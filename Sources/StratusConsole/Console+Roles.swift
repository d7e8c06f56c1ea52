import StratusHTTP
import StratusModel

extension Console {
    /// The 403 page of a request the administrator's role does not allow: which role it needs, and what they hold.
    func refusedByRole(_ session: Session, _ need: ConsoleNeed, _ scope: ConsoleScope?) -> HTTPResponse {
        let held = session.roles.role(in: scope?.container)
        let action = need.action(in: scope) ?? .read
        let needed = scope == nil && action == .read ? AdminRole.viewer : AdminRole.needed(for: action)
        let where_ = [AdminAction.manageAdministrators, .serverWide].contains(action) ? "over every container"
            : scope.map { "in \($0.container.rawValue)" } ?? "in some container"
        let holds = held.map { "You are a \($0.rawValue) there." } ?? "You hold no role there."
        return errorPage(session, status: .forbidden, heading: "Not allowed",
                         reason: "This needs the \(needed.rawValue) role \(where_). \(holds) An owner grants roles.")
    }
}
