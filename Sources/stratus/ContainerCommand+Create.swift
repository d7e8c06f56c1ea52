import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension ContainerCommand {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a container with empty Development and Production environments.")
        @OptionGroup var options: DataOptions
        @Argument(help: "The container identifier, e.g. iCloud.com.example.Notes.") var container: String

        func run() throws {
            try reportingErrors {
                let id = try ContainerID(container)
                let store = try options.open()
                try store.createContainer(id)
                try audited(store, "create container", container: id.rawValue)
                print("created \(id)")
            }
        }
    }
}
