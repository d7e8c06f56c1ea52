import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an environment's schema as .ckdb.")
        @OptionGroup var options: DataOptions
        @Option(help: "The container identifier.") var container: String
        @Option(help: "development or production.") var environment: String = "development"

        func run() throws {
            try reportingErrors {
                let id = try ContainerID(container)
                let env = try ContainerEnvironment(parsing: environment)
                print(SchemaPrinter.print(try options.open().environment(id, env).schema.current()), terminator: "")
            }
        }
    }
}
