import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus apns set|show|remove`: the developer's APNs key for a container environment, with which the server
/// pushes notifications to the Apple devices users registered.
struct APNsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns",
                                                    abstract: "Manage the APNs key that pushes notifications to Apple devices.",
                                                    subcommands: [Set.self, Show.self, Remove.self])
}
