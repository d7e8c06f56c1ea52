import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the Development schema with a .ckdb file (refused whole if it would lose Production data).")
        @OptionGroup var options: DataOptions
        @Option(help: "The container identifier.") var container: String
        @Option(help: "The .ckdb file to import.") var file: String
        @Flag(help: "Only print what would change.") var dryRun = false

        func run() throws {
            try reportingErrors {
                let id = try ContainerID(container)
                guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8) else {
                    throw StratusError.badRequest("cannot read \(file) as UTF-8 text")
                }
                let schema = try SchemaParser.parse(text)
                let store = try options.open()
                let diff = dryRun ? try store.lifecycle.importPlan(schema, into: id) : try store.lifecycle.importSchema(schema, into: id)
                if !dryRun { try audited(store, "import schema", container: container, environment: "development", detail: "\(diff.changes.count) changes") }
                printDiff(diff, applied: !dryRun)
            }
        }
    }
}
