import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus faults set|list|clear`: make a container environment misbehave on purpose, for client retry tests.
struct FaultsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "faults",
                                                    abstract: "Inject CloudKit errors, dropped connections and latency for client tests.",
                                                    subcommands: [Set.self, List.self, Clear.self])
}
