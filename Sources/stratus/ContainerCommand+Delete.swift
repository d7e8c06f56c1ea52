import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    struct Delete: Change {
        static let verb = "delete"
        static let configuration = CommandConfiguration(abstract: "Delete a container and all its data.")
        @OptionGroup var options: DataOptions
        @Argument var container: String

        func apply(_ store: ServerStore, _ id: ContainerID) throws { try store.deleteContainer(id) }
    }
}
