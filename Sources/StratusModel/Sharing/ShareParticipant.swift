/// One person on a share, as CloudKit's Participant dictionary describes them.
public struct ShareParticipant: Sendable, Hashable {
    /// OWNER is the share's owner, USER someone the owner invited, PUBLIC_USER someone who joined through the link.
    public enum Kind: String, Sendable, Hashable, CaseIterable { case owner = "OWNER", user = "USER", publicUser = "PUBLIC_USER" }
    public enum Status: String, Sendable, Hashable, CaseIterable { case invited = "INVITED", accepted = "ACCEPTED", removed = "REMOVED" }

    public var userRecordName: String
    /// The address the owner invited them by, if it was one: shown to the share's own members only.
    public var emailAddress: String?
    public var permission: SharePermission
    public var type: Kind
    public var acceptanceStatus: Status

    /// Someone invited by an address that has no account yet holds this in place of a user record name until that
    /// address signs up (user record names start with `_`, so the two never meet).
    public static func pendingName(email: String) -> String { "@" + email.lowercased() }

    /// Invited by an address and not yet joined: who they are is not shown, only the address the owner gave, so a
    /// share's answers are the same whether or not the address has an account.
    public var isUnconfirmed: Bool { emailAddress != nil && acceptanceStatus != .accepted && type == .user }

    public init(userRecordName: String, emailAddress: String? = nil, permission: SharePermission, type: Kind, acceptanceStatus: Status) {
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.permission = permission
        self.type = type
        self.acceptanceStatus = acceptanceStatus
    }
}
