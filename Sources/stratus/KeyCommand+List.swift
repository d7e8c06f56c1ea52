import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension KeyCommand {
    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's server-to-server keys.")
        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            for k in try t.store.credentials.serverKeys(container: t.container, environment: t.environment) {
                print("\(k.keyID)\t\(k.revoked ? "revoked" : "active")\t\(k.notes)")
            }
        }
    }
}
