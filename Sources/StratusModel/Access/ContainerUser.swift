/// A user of one container: CloudKit's `userRecordName` (`_` + 32 hex, stable per container) and profile.
public struct ContainerUser: Sendable, Hashable {
    public var userRecordName, email, firstName, lastName: String
    /// Whether other users may find this one (by email or user record name) through `users/discover` and
    /// `users/lookup/*`. Off until the user opts in, as CloudKit's user discoverability permission is.
    public var discoverable: Bool
    /// When the user last set `discoverable` (milliseconds since 1970), nil if never.
    public var discoverabilityChangedAt: Int64?

    public init(userRecordName: String, email: String, firstName: String = "", lastName: String = "",
                discoverable: Bool = false, discoverabilityChangedAt: Int64? = nil) {
        self.userRecordName = userRecordName
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
        self.discoverable = discoverable
        self.discoverabilityChangedAt = discoverabilityChangedAt
    }
}
