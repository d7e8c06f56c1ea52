import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct WebhookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "webhook", abstract: "Manage webhooks: public-database changes POSTed to your backend.",
                                                    subcommands: [Add.self, List.self, Remove.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a webhook and print its signing secret (shown once).")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String
        @Option(help: "Where to POST each notification (http or https).") var url: String
        @Option(name: .customLong("record-type"), help: "A record type to hear (repeatable; none: every type).") var recordTypes: [String] = []

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                let env = try store.environment(try ContainerID(container), try ContainerEnvironment(parsing: environment))
                let (hook, secret) = try env.webhooks.addWebhook(url: url, recordTypes: recordTypes)
                try audited(store, "add webhook", container: container, environment: environment, detail: "#\(hook.id) \(url)")
                print("webhook #\(hook.id): signing secret (X-Stratus-Signature is sha256=HMAC-SHA256 of the body under it):")
                print(secret)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's webhooks.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func run() throws {
            try reportingErrors {
                let env = try options.open().environment(try ContainerID(container), try ContainerEnvironment(parsing: environment))
                for h in try env.webhooks.all() {
                    let types = h.recordTypes.isEmpty ? "all types" : h.recordTypes.joined(separator: ",")
                    print("\(h.id)\t\(h.enabled ? "enabled" : "disabled")\t\(h.url)\t\(types)\tfailures=\(h.failures)\t\(h.lastStatus ?? "never delivered")")
                }
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook (its pending deliveries go with it).")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String
        @Argument var id: Int64

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                try store.environment(try ContainerID(container), try ContainerEnvironment(parsing: environment)).webhooks.removeWebhook(id: id)
                try audited(store, "remove webhook", container: container, environment: environment, detail: "#\(id)")
                print("removed webhook #\(id)")
            }
        }
    }
}
