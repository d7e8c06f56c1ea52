/// A user `serve --demo` made, with the password it printed once (it is kept only hashed).
public struct DemoUser: Sendable {
    public let name, email, password, userRecordName: String
}
