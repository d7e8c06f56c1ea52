import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct TokenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "token",
                                                    abstract: "Manage API tokens for CloudKit Web Services.",
                                                    subcommands: [Create.self, ListCredentials<APIToken>.self,
                                                                  RevokeCredential<APIToken>.self])
}
