/// Who is asking: a signed-in user with the custom roles they hold, or nobody (an API token alone).
public struct Caller: Sendable, Hashable {
    public var userRecordName: String?
    /// Custom roles assigned to the user in this environment.
    public var roles: Set<String>

    public init(userRecordName: String?, roles: Set<String> = []) {
        self.userRecordName = userRecordName
        self.roles = roles
    }

    public static let anonymous = Caller(userRecordName: nil)
    public var isAuthenticated: Bool { userRecordName != nil }
}
