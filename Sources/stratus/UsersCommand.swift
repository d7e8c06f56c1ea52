import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "users", abstract: "Container users.",
                                                    subcommands: [List.self, Purge.self])
}
