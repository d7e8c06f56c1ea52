import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "Manage server-to-server keys.",
                                                    subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register an ECDSA P-256 public key (PEM) and print its Key ID.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String
        @Option(help: "The public key, as `openssl ec -in eckey.pem -pubout` writes it.") var publicKeyFile: String
        @Option var notes: String = ""

        func run() throws {
            try reportingErrors {
                guard let pem = try? String(contentsOfFile: publicKeyFile, encoding: .utf8) else { throw StratusError.badRequest("cannot read \(publicKeyFile)") }
                let store = try options.open()
                let key = try store.credentials.addServerKey(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment),
                                                 publicKeyPEM: pem, notes: notes)
                try audited(store, "add server-to-server key", container: container, environment: environment, detail: key.keyID)
                print(key.keyID)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's server-to-server keys.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func run() throws {
            try reportingErrors {
                for k in try options.open().credentials.serverKeys(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment)) {
                    print("\(k.keyID)\t\(k.revoked ? "revoked" : "active")\t\(k.notes)")
                }
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by its Key ID.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Argument var keyID: String

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                try store.credentials.revokeServerKey(id: keyID, container: try ContainerID(container))
                try audited(store, "revoke server-to-server key", container: container, detail: keyID)
                print("revoked \(keyID)")
            }
        }
    }
}
