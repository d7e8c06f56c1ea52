import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension KeyCommand {
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
