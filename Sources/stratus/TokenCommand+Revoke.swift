import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension TokenCommand {
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
