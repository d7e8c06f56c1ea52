/// A user `serve --demo` made, with the password it printed once (it is kept only hashed).
public struct DemoUser: Sendable {
    public let name: String
    public let email: String
    public let password: String
    public let userRecordName: String
}
