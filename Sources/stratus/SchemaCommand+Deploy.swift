import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Deploy: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "Deploy the Development schema to Production (prints the changes).")
        @OptionGroup var target: ContainerOptions
        @Flag(help: "Only print what would change.") var dryRun = false
        @Option(help: "Who deploys, for the deployment history.") var by: String = ProcessInfo.processInfo.environment["USER"] ?? "cli"

        func run(_ t: ContainerTarget) throws {
            if dryRun {
                let plan = try t.store.lifecycle.deployPlan(t.container)
                printDiff(plan, applied: false)
                if !plan.refusals.isEmpty { throw StratusError.badRequest("this deploy would be refused") }
            } else {
                let diff = try t.store.lifecycle.deploy(t.container, by: by)
                try t.audit("deploy schema", "\(diff.changes.count) changes", environment: .production)
                printDiff(diff, applied: true)
            }
        }
    }
}
