import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension TokenCommand {
    struct List: EnvironmentCommand {
        static let configuration = CommandConfiguration(abstract: "List a container environment's API tokens.")
        @OptionGroup var target: EnvironmentOptions

        func run(_ t: EnvironmentTarget) throws {
            for t in try t.store.credentials.apiTokens(container: t.container, environment: t.environment) {
                print("\(t.id)\t\(t.name)\t\(t.revoked ? "revoked" : "active")\t\(t.allowedOrigins.isEmpty ? "no browser origins" : t.allowedOrigins.joined(separator: ","))")
            }
        }
    }
}
