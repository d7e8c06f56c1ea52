import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Export: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "Print an environment's schema as .ckdb.")
        @OptionGroup var target: ContainerOptions
        @Option(help: "development or production.") var environment: String = "development"

        func run(_ t: ContainerTarget) throws {
            let schema = try t.store.environment(t.container,
                                                 try ContainerEnvironment(parsing: environment)).schema.current()
            print(SchemaPrinter.print(schema), terminator: "")
        }
    }
}
