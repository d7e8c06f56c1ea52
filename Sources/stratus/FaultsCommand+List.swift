import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension FaultsCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List faults: id, target, error, what is left, how often it fired.")
        @OptionGroup var options: DataOptions
        @Option var container: String?

        func run() throws {
            try reportingErrors {
                let faults = try options.open().faults.all(container: try container.map { try ContainerID($0) })
                if faults.isEmpty { print("no faults") }
                let now = WallClock.nowMillis()
                for f in faults {
                    let left = f.remaining.map { "\($0) left" } ?? "p=\(f.probability ?? 0) seed=\(f.seed)"
                    let state = now >= f.expiresAt ? "expired" : (f.remaining == 0 ? "spent" : "on")
                    let scope = [f.user.map { "user=\($0)" }, f.zone.map { "zone=\($0)" },
                                 f.recordType.map { "type=\($0)" }, f.recordName.map { "record=\($0)" }]
                        .compactMap { $0 }.joined(separator: ",")
                    print("\(f.id)\t\(f.container)/\(f.environment.rawValue)\t\(f.operation)\t\(f.kind.rawValue)\t\(left)\tinjected \(f.injected)\t\(state)\t\(f.stage.rawValue)\t\(scope.isEmpty ? "all" : scope)")
                }
            }
        }
    }
}
