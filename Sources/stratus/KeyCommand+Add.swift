import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension KeyCommand {
    struct Add: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Register an ECDSA P-256 public key (PEM) and print its Key ID.")
        @OptionGroup var target: EnvironmentOptions
        @Option(help: "The public key, as `openssl ec -in eckey.pem -pubout` writes it.") var publicKeyFile: String
        @Option var notes: String = ""

        func run(_ t: EnvironmentTarget) throws {
            guard let pem = try? String(contentsOfFile: publicKeyFile,
                                        encoding: .utf8) else { throw StratusError.badRequest("cannot read \(publicKeyFile)") }
            let key = try t.store.credentials.addServerKey(container: t.container, environment: t.environment,
                                             publicKeyPEM: pem, notes: notes)
            try t.audit("add server-to-server key", key.keyID)
            print(key.keyID)
        }
    }
}
