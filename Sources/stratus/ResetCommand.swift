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
            try options.open().resetDevelopment(id)
            print("reset the development environment of \(id)")
        }
    }
}
