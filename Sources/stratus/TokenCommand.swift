import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Manage API tokens for CloudKit Web Services.",
                                                    subcommands: [Create.self, List.self, Revoke.self])

    struct Create: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it (shown once).")

        @OptionGroup var target: EnvironmentOptions
        @Option(help: "A name to recognise the token by.") var name: String
        @Option(name: .customLong("allowed-origin"), help: "An origin (https://app.example[:port]) whose pages may use it and receive sign-ins (repeatable; none: no browser origin, servers only).") var allowedOrigins: [String] = []

        func run(_ t: EnvironmentTarget) throws {
            let (token, secret) = try t.store.credentials.createAPIToken(container: t.container, environment: t.environment,
                                                          name: name, allowedOrigins: allowedOrigins)
            try t.audit("create API token", "#\(token.id) \(name)")
            print(secret)
        }
    }

    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's API tokens.")

        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            for t in try t.store.credentials.apiTokens(container: t.container, environment: t.environment) {
                print("\(t.id)\t\(t.name)\t\(t.revoked ? "revoked" : "active")\t\(t.allowedOrigins.isEmpty ? "no browser origins" : t.allowedOrigins.joined(separator: ","))")
            }
        }
    }

    struct Revoke: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API token by its id.")
        @OptionGroup var target: ContainerOptions
        @Argument var id: Int64

        func run(_ t: ContainerTarget) throws {
            try t.store.credentials.revokeAPIToken(id: id, container: t.container)
            try t.audit("revoke API token", "#\(id)")
            print("revoked \(id)")
        }
    }
}
