import StratusModel

/// A live console session as one read finds it: its administrator with their roles, its form token, whom it acts
/// as, and whether it still waits for its second step.
public struct AdminSessionState: Sendable {
    public var admin: Admin
    public var csrf: String
    public var acting: ActingAs?
    public var secondStepPending: Bool
    public var roles: AdminRoles
}
