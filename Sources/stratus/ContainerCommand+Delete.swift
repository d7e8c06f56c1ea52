import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a container and all its data.")
        @OptionGroup var options: DataOptions
        @Argument var container: String

        func run() throws {
            try reportingErrors {
                let id = try ContainerID(container)
                let store = try options.open()
                try store.deleteContainer(id)
                try audited(store, "delete container", container: id.rawValue)
                print("deleted \(id)")
            }
        }
    }
}
