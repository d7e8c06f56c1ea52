import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct WebhookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webhook", abstract: "Manage webhooks: public-database changes POSTed to your backend.",
                                                    subcommands: [Add.self, List.self, Remove.self])

    struct Add: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Register a webhook and print its signing secret (shown once).")

        @OptionGroup var target: EnvironmentOptions
        @Option(help: "Where to POST each notification (http or https).") var url: String
        @Option(name: .customLong("record-type"), help: "A record type to hear (repeatable; none: every type).") var recordTypes: [String] = []

        func run(_ t: EnvironmentTarget) throws {
            let env = try t.env
            let (hook, secret) = try env.webhooks.addWebhook(url: url, recordTypes: recordTypes)
            try t.audit("add webhook", "#\(hook.id) \(url)")
            print("webhook #\(hook.id): signing secret (X-Stratus-Signature is sha256=HMAC-SHA256 of the body under it):")
            print(secret)
        }
    }

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
