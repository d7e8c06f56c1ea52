import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Import: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the Development schema with a .ckdb file (refused whole if it would lose Production data).")
        @OptionGroup var target: ContainerOptions
        @Option(help: "The .ckdb file to import.") var file: String
        @Flag(help: "Only print what would change.") var dryRun = false

        func run(_ t: ContainerTarget) throws {
            guard let data = FileManager.default.contents(atPath: file), let text = String(data: data,
                    encoding: .utf8) else {
                throw StratusError.badRequest("cannot read \(file) as UTF-8 text")
            }
            let schema = try SchemaParser.parse(text)
            let lifecycle = t.store.lifecycle
            let diff = dryRun ? try lifecycle.importPlan(schema, into: t.container) : try lifecycle.importSchema(schema,
                    into: t.container)
            if !dryRun { try t.audit("import schema", "\(diff.changes.count) changes", environment: .development) }
            printDiff(diff, applied: !dryRun)
        }
    }
}
