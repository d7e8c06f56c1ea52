import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct ContainerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "container", abstract: "Create, list and delete containers.",
                                                    subcommands: [Create.self, List.self, Delete.self])

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

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List containers.")
        @OptionGroup var options: DataOptions

        func run() throws {
            try reportingErrors {
                for c in try options.open().containers() { print(c.id) }
            }
        }
    }

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

