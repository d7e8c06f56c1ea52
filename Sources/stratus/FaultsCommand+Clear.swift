import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension FaultsCommand {
    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Clear one fault (--id) or every fault of a container (and environment).")
        @OptionGroup var options: DataOptions
        @Option var id: Int64?
        @Option var container: String?
        @Option var environment: String?

        func run() throws {
            try reportingErrors {
                guard id != nil || container != nil else { throw StratusError.badRequest("name a fault (--id) or a container (--container)") }
                let store = try options.open()
                try store.faults.clearFaults(id: id, container: try container.map { try ContainerID($0) },
                                      environment: try environment.map { try ContainerEnvironment(parsing: $0) })
                try audited(store, "clear faults", container: container, environment: environment,
                            detail: id.map { "fault \($0)" } ?? "all")
                print("cleared")
            }
        }
    }
}
