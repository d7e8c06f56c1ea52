/// A user of one container: CloudKit's `userRecordName` (`_` + 32 hex, stable per container) and profile.
public struct ContainerUser: Sendable, Hashable {
    public var userRecordName: String
    public var email: String
    public var firstName: String
    public var lastName: String

    public init(userRecordName: String, email: String, firstName: String = "", lastName: String = "") {
        self.userRecordName = userRecordName
        self.email = email
        self.firstName = firstName
        self.lastName = lastName
    }
}
