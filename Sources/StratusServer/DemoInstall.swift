/// What `serve --demo` made on this start and prints once (only hashes are kept): its users' passwords and an API
/// token for a web app on localhost.
public struct DemoInstall: Sendable {
    public let users: [DemoUser]
    public let apiToken, apiTokenOrigin: String
}
