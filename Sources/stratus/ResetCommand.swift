import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct ResetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reset",
        abstract: "Reset Development: delete all its records and zones; its schema goes back to Production's.")
    @OptionGroup var options: DataOptions
    @Option(help: "The container identifier.") var container: String

    func run() throws {
        try reportingErrors {
            let id = try ContainerID(container)
            let store = try options.open()
            try store.lifecycle.resetDevelopment(id)
            try audited(store, "reset development", container: id.rawValue, environment: "development")
            print("reset the development environment of \(id)")
        }
    }
}
