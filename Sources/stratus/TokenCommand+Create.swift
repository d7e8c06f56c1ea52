import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension TokenCommand {
    struct Create: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it (shown once).")
        @OptionGroup var target: EnvironmentOptions
        @Option(help: "A name to recognise the token by.") var name: String
        @Option(name: .customLong("allowed-origin"),
                help: "An origin (https://app.example[:port]) whose pages may use it and receive sign-ins (repeatable; none: no browser origin, servers only).") var allowedOrigins: [String] = []

        func run(_ t: EnvironmentTarget) throws {
            let (token, secret) = try t.store.credentials.createAPIToken(container: t.container,
                    environment: t.environment,
                                                          name: name, allowedOrigins: allowedOrigins)
            try t.audit("create API token", "#\(token.id) \(name)")
            print(secret)
        }
    }
}
