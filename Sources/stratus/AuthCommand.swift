import ArgumentParser

struct AuthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "auth",
                                                    abstract: "How a container's users sign in.",
                                                    subcommands: [ProviderCommand.self, SignUpCommand.self])
}
