import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension APNsCommand {
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
}
