import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension WebhookCommand {
    struct Add: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Register a webhook and print its signing secret (shown once).")
        @OptionGroup var target: EnvironmentOptions
        @Option(help: "Where to POST each notification (http or https).") var url: String
        @Option(name: .customLong("record-type"),
                help: "A record type to hear (repeatable; none: every type).") var recordTypes: [String] = []

        func run(_ t: EnvironmentTarget) throws {
            let env = try t.env
            let (hook, secret) = try env.webhooks.addWebhook(url: url, recordTypes: recordTypes)
            try t.audit("add webhook", "#\(hook.id) \(url)")
            print("webhook #\(hook.id): signing secret (X-Stratus-Signature is sha256=HMAC-SHA256 of the body under it):")
            print(secret)
        }
    }
}
