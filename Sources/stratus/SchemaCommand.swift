import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "schema",
                                                    abstract: "Import, export and deploy schema (.ckdb).",
                                                    subcommands: [Import.self, Export.self, Deploy.self, Check.self])
}

func printDiff(_ diff: SchemaDiff, applied: Bool) {
    if diff.isEmpty { print("no changes") }
    for c in diff.changes { print((applied ? "applied: " : "would apply: ") + c.description) }
    for r in diff.refusals { print("refused: " + r) }
}
