import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    struct Create: Change {
        static let verb = "create"
        static let configuration = CommandConfiguration(abstract: "Create a container with empty Development and Production environments.")
        @OptionGroup var options: DataOptions
        @Argument(help: "The container identifier, e.g. iCloud.com.example.Notes.") var container: String

        func apply(_ store: ServerStore, _ id: ContainerID) throws { try store.createContainer(id) }
    }
}
