import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension WebhookCommand {
    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's webhooks.")
        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            let env = try t.env
            for h in try env.webhooks.all() {
                let types = h.recordTypes.isEmpty ? "all types" : h.recordTypes.joined(separator: ",")
                print("\(h.id)\t\(h.enabled ? "enabled" : "disabled")\t\(h.url)\t\(types)\tfailures=\(h.failures)\t\(h.lastStatus ?? "never delivered")")
            }
        }
    }
}
