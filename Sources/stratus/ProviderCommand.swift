import ArgumentParser

extension AuthCommand {
    struct ProviderCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "provider",
            abstract: "OpenID providers (Sign in with Apple, Google, your own) a container's users sign in with.",
            subcommands: [Add.self, List.self, Remove.self])
    }
}
