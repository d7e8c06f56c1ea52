import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "Manage server-to-server keys.",
                                                    subcommands: [Add.self, List.self, Revoke.self])

    struct Add: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Register an ECDSA P-256 public key (PEM) and print its Key ID.")

        @OptionGroup var target: EnvironmentOptions
        @Option(help: "The public key, as `openssl ec -in eckey.pem -pubout` writes it.") var publicKeyFile: String
        @Option var notes: String = ""

        func run(_ t: EnvironmentTarget) throws {
            guard let pem = try? String(contentsOfFile: publicKeyFile, encoding: .utf8) else { throw StratusError.badRequest("cannot read \(publicKeyFile)") }
            let key = try t.store.credentials.addServerKey(container: t.container, environment: t.environment,
                                             publicKeyPEM: pem, notes: notes)
            try t.audit("add server-to-server key", key.keyID)
            print(key.keyID)
        }
    }

    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's server-to-server keys.")

        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            for k in try t.store.credentials.serverKeys(container: t.container, environment: t.environment) {
                print("\(k.keyID)\t\(k.revoked ? "revoked" : "active")\t\(k.notes)")
            }
        }
    }

    struct Revoke: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key by its Key ID.")
        @OptionGroup var target: ContainerOptions
        @Argument var keyID: String

        func run(_ t: ContainerTarget) throws {
            try t.store.credentials.revokeServerKey(id: keyID, container: t.container)
            try t.audit("revoke server-to-server key", keyID)
            print("revoked \(keyID)")
        }
    }
}
