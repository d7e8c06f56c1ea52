import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
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
