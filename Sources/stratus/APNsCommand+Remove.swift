import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension APNsCommand {
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
