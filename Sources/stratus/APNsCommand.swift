import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus apns set|show|remove`: the developer's APNs key for a container environment, with which the server
/// pushes notifications to the Apple devices users registered.
struct APNsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "apns", abstract: "Manage the APNs key that pushes notifications to Apple devices.",
                                                    subcommands: [Set.self, Show.self, Remove.self])

    struct Set: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Store the APNs key (AuthKey_KEYID.p8) of a container environment; a running server uses it within seconds.")

        @OptionGroup var target: EnvironmentOptions
        @Option(help: ArgumentHelp("The .p8 file Apple issued for the key.", valueName: "AuthKey.p8")) var keyFile: String
        @Option(help: "The key's ten-character Key ID.") var keyId: String
        @Option(help: "Your developer team's ten-character Team ID.") var teamId: String
        @Option(help: ArgumentHelp("The app's bundle ID (apns-topic).", valueName: "bundle-id")) var topic: String

        func run(_ t: EnvironmentTarget) throws {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: keyFile))?[.size] as? Int, size <= 8192,
                  let pem = try? String(contentsOfFile: keyFile, encoding: .utf8) else {
                throw StratusError.badRequest("cannot read the key file \(keyFile) (the .p8 file is a few hundred bytes of text)")
            }
            let c = try t.store.credentials.setAPNsCredentials(container: t.container, environment: t.environment,
                                                 privateKeyPEM: pem, keyID: keyId, teamID: teamId, topic: topic)
            try t.audit("set APNs key", "\(keyId) \(topic)")
            print("APNs key \(c.keyID) (team \(c.teamID)) pushes to \(c.topic) for \(c.container) \(c.environment.rawValue)")
        }
    }

    struct Show: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Show which APNs key a container environment pushes with (never the key itself) and its devices.")

        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            let (c, e) = (t.container, t.environment)
            guard let creds = try t.store.credentials.apnsCredentials(container: c, environment: e) else {
                print("no APNs key for \(c) \(e.rawValue): set one with stratus apns set")
                return
            }
            print("key ID \(creds.keyID)\tteam ID \(creds.teamID)\ttopic \(creds.topic)")
            let devices = try t.store.environment(c, e).apns.apnsDevices()
            print("\(devices.count) device\(devices.count == 1 ? "" : "s") registered")
        }
    }

    struct Remove: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a container environment's APNs key: nothing more is pushed to its devices.")

        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            try t.store.credentials.removeAPNsCredentials(container: t.container, environment: t.environment)
            try t.audit("remove APNs key")
            print("removed the APNs key of \(t.container) \(t.environment.rawValue)")
        }
    }
}
