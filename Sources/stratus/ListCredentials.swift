import ArgumentParser

/// `stratus token list` and `stratus key list`: a container environment's credentials of one kind, a line each.
struct ListCredentials<Credential: ManagedCredential>: EnvironmentCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: "list", abstract: "List a container environment's \(Credential.noun)s.")
    }
    @OptionGroup var target: EnvironmentOptions

    func run(_ t: EnvironmentTarget) throws {
        for credential in try Credential.all(t) { print(credential.listLine) }
    }
}
