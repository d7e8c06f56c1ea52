import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension SchemaCommand {
    struct Check: ContainerWideCommand {
        static let configuration = CommandConfiguration(
            abstract: "List what Production would refuse of what the app does in Development; exit 1 if anything (for CI).",
            discussion: "Record types and fields not deployed (many made just in time), and queries Development ran on fields without the index Production needs.")
        @OptionGroup var target: ContainerOptions

        func run(_ t: ContainerTarget) throws {
            let problems = try t.store.lifecycle.schemaCheck(container: t.container)
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
