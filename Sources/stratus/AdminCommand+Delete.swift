import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an administrator and end their sessions.")
        @OptionGroup var options: DataOptions
        @Option var email: String
        func run() throws { try reportingErrors { let store = try options.open(); try store.admins.deleteAdmin(email: email); try audited(store, "delete administrator", detail: email); print("deleted administrator \(email)") } }
    }
}
