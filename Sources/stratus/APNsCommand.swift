import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus apns set|show|remove`: the developer's APNs key for a container environment, with which the server
/// pushes notifications to the Apple devices users registered.
struct APNsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns", abstract: "Manage the APNs key that pushes notifications to Apple devices.",
                                                    subcommands: [Set.self, Show.self, Remove.self])

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store the APNs key (AuthKey_KEYID.p8) of a container environment; a running server uses it within seconds.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String
        @Option(help: ArgumentHelp("The .p8 file Apple issued for the key.", valueName: "AuthKey.p8")) var keyFile: String
        @Option(help: "The key's ten-character Key ID.") var keyId: String
        @Option(help: "Your developer team's ten-character Team ID.") var teamId: String
        @Option(help: ArgumentHelp("The app's bundle ID (apns-topic).", valueName: "bundle-id")) var topic: String

        func run() throws {
            try reportingErrors {
                guard let size = (try? FileManager.default.attributesOfItem(atPath: keyFile))?[.size] as? Int, size <= 8192,
                      let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                    throw StratusError.badRequest("cannot read the key file \(keyFile) (the .p8 file is a few hundred bytes of text)")
                }
                let store = try options.open()
                let c = try store.credentials.setAPNsCredentials(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment),
                                                     privateKeyPEM: pem, keyID: keyId, teamID: teamId, topic: topic)
                try audited(store, "set APNs key", container: container, environment: environment, detail: "\(keyId) \(topic)")
                print("APNs key \(c.keyID) (team \(c.teamID)) pushes to \(c.topic) for \(c.container) \(c.environment.rawValue)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show which APNs key a container environment pushes with (never the key itself) and its devices.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                let (c, e) = (try ContainerID(container), try ContainerEnvironment(parsing: environment))
                guard let creds = try store.credentials.apnsCredentials(container: c, environment: e) else {
                    print("no APNs key for \(c) \(e.rawValue): set one with stratus apns set")
                    return
                }
                print("key ID \(creds.keyID)\tteam ID \(creds.teamID)\ttopic \(creds.topic)")
                let devices = try store.environment(c, e).apns.apnsDevices()
                print("\(devices.count) device\(devices.count == 1 ? "" : "s") registered")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a container environment's APNs key: nothing more is pushed to its devices.")
        @OptionGroup var options: DataOptions
        @Option var container: String
        @Option var environment: String

        func run() throws {
            try reportingErrors {
                let store = try options.open()
                try store.credentials.removeAPNsCredentials(container: try ContainerID(container), environment: try ContainerEnvironment(parsing: environment))
                try audited(store, "remove APNs key", container: container, environment: environment)
                print("removed the APNs key of \(container) \(environment)")
            }
        }
    }
}
