import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct WebhookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webhook",
                                                    abstract: "Manage webhooks: public-database changes POSTed to your backend.",
                                                    subcommands: [Add.self, List.self, Remove.self])
}
