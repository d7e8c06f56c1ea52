import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension APNsCommand {
    struct Set: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "Store the APNs key (AuthKey_KEYID.p8) of a container environment; a running server uses it within seconds.")
        @OptionGroup var target: EnvironmentOptions
        @Option(help: ArgumentHelp("The .p8 file Apple issued for the key.",
                                   valueName: "AuthKey.p8")) var keyFile: String
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
}
