import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct ContainerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "container",
                                                    abstract: "Create, list and delete containers.",
                                                    subcommands: [Create.self, List.self, Delete.self])
}

