import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "schema", abstract: "Import, export and deploy schema (.ckdb).",
                                                    subcommands: [Import.self, Export.self, Deploy.self, Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what Production would refuse of what the app does in Development; exit 1 if anything (for CI).",
            discussion: "Record types and fields not deployed (many made just in time), and queries Development ran on fields without the index Production needs.")
        @OptionGroup var options: DataOptions
        @Option(help: "The container identifier.") var container: String

        func run() throws {
            try reportingErrors {
                let problems = try options.open().lifecycle.schemaCheck(container: try ContainerID(container))
                if problems.isEmpty {
                    print("ok: Production accepts what Development's app does")
                    return
                }
                for p in problems { print(p.message) }
                FileHandle.standardError.write(Data("\(problems.count) problem\(problems.count == 1 ? "" : "s"): Production would refuse these\n".utf8))
                throw ExitCode(1)
            }
        }
    }

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

    struct Deploy: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deploy the Development schema to Production (prints the changes).")
        @OptionGroup var options: DataOptions
        @Option(help: "The container identifier.") var container: String
        @Flag(help: "Only print what would change.") var dryRun = false
        @Option(help: "Who deploys, for the deployment history.") var by: String = ProcessInfo.processInfo.environment["USER"] ?? "cli"

        func run() throws {
            try reportingErrors {
                let id = try ContainerID(container)
                let store = try options.open()
                if dryRun {
                    let plan = try store.lifecycle.deployPlan(id)
                    printDiff(plan, applied: false)
                    if !plan.refusals.isEmpty { throw StratusError.badRequest("this deploy would be refused") }
                } else {
                    let diff = try store.lifecycle.deploy(id, by: by)
                    try audited(store, "deploy schema", container: container, environment: "production", detail: "\(diff.changes.count) changes")
                    printDiff(diff, applied: true)
                }
            }
        }
    }
}

func printDiff(_ diff: SchemaDiff, applied: Bool) {
    if diff.isEmpty { print("no changes") }
    for c in diff.changes { print((applied ? "applied: " : "would apply: ") + c.description) }
    for r in diff.refusals { print("refused: " + r) }
}
