/// The container user an administrator acts as in one container environment (the console's "Act as"): kept with
/// the admin's session, so it is chosen once and every Data page of the private and shared databases reads as
/// that user until the admin stops or the session ends.
public struct ActingAs: Sendable, Hashable {
    public var container, environment, userRecordName: String
    public init(container: String, environment: String, userRecordName: String) {
        self.container = container; self.environment = environment; self.userRecordName = userRecordName
    }
}
