import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token", abstract: "Manage API tokens for CloudKit Web Services.",
                                                    subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it (shown once).")
        @OptionGroup var options: DataOptions
        @Option(help: "The container identifier.") var container: String
        @Option(help: "development or production.") var environment: String
        @Option(help: "A name to recognise the token by.") var name: String
        @Option(name: .customLong("allowed-origin"), help: "An origin (https://app.example[:port]) whose pages may use it and receive sign-ins (repeatable; none: no browser origin, servers only).") var allowedOrigins: [String] = []

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                let (token, secret) = try store.credentials.createAPIToken(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment),
                                                              name: name, allowedOrigins: allowedOrigins)
                try audited(store, "create API token", container: container, environment: environment, detail: "#\(token.id) \(name)")
                print(secret)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's API tokens.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func run() throws {
            try reportingErrors {
                for t in try options.open().credentials.apiTokens(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment)) {
                    print("\(t.id)\t\(t.name)\t\(t.revoked ? "revoked" : "active")\t\(t.allowedOrigins.isEmpty ? "no browser origins" : t.allowedOrigins.joined(separator: ","))")
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API token by its id.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Argument var id: Int64

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                try store.credentials.revokeAPIToken(id: id, container: try ContainerID(container))
                try audited(store, "revoke API token", container: container, detail: "#\(id)")
                print("revoked \(id)")
            }
        }
    }
}
