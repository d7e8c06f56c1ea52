import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus indexes list|pin|drop`: the composite indexes Stratus built for query shapes (see the Query shapes page).
struct IndexesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "indexes",
                                                    abstract: "List, pin and drop the indexes Stratus built for query shapes.",
                                                    subcommands: [List.self, ChangeAutoIndex<PinIndex>.self,
                                                                  ChangeAutoIndex<UnpinIndex>.self,
                                                            ChangeAutoIndex<DropIndex>.self])
}
