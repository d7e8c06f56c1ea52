import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension WebhookCommand {
    struct Remove: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook (its pending deliveries go with it).")
        @OptionGroup var target: EnvironmentOptions
        @Argument var id: Int64

        func run(_ t: EnvironmentTarget) throws {
            try t.env.webhooks.removeWebhook(id: id)
            try t.audit("remove webhook", "#\(id)")
            print("removed webhook #\(id)")
        }
    }
}
