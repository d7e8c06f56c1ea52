import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key", abstract: "Manage server-to-server keys.",
                                                    subcommands: [Add.self, ListCredentials<ServerKey>.self,
                                                                  RevokeCredential<ServerKey>.self])
}
