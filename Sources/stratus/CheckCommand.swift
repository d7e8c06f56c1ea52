import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus check`: the control data (see `ControlCheck`) and every container environment of a store (SQLite or
/// PostgreSQL) checked while it may be serving — the engine's own check, then the invariants Stratus keeps (see
/// `ConsistencyCheck`). Exits 1 when anything is wrong.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check",
        abstract: "Check a store: the engine's own check, record counts, the change log against the records, assets against their references, change counters, the control data.")
    @OptionGroup var options: DataOptions
    @Option(help: "Only this container (default: every one).") var container: String?

    func run() throws {
        var problems = 0
        try reportingErrors {
            let store = try options.open()
            defer { store.close() }
            if container == nil {
                let control = try ControlCheck(store).run()
                for note in control.notes { print("control data: note: \(note)") }
                for problem in control.problems { print("control data: \(problem)") }
                if control.problems.isEmpty { print("control data: ok") }
                problems += control.problems.count
            }
            let ids = try container.map { [try ContainerID($0)] } ?? store.containers().map(\.id)
            for id in ids {
                for environment in ContainerEnvironment.allCases {
                    let report = try store.environment(id, environment).consistency.run()
                    let name = "\(id) \(environment.rawValue)"
                    for note in report.notes { print("\(name): note: \(note)") }
                    for problem in report.problems { print("\(name): \(problem)") }
                    if report.problems.isEmpty { print("\(name): ok") }
                    problems += report.problems.count
                }
            }
        }
        if problems > 0 {
            FileHandle.standardError.write(Data("\(problems) problem\(problems == 1 ? "" : "s") found\n".utf8))
            throw ExitCode(1)
        }
    }
}
