import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct ResetTwoFactor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-two-factor",
            abstract: "Forget an administrator's second factor and end their sessions (on the server's own machine: "
                + "the last owner's way back).")
        @OptionGroup var options: DataOptions
        @Option var email: String
        func run() throws {
            try reportingErrors {
                let store = try options.open()
                try store.admins.twoFactor.resetTwoFactor(email: email)
                try audited(store, "reset second factor", detail: email)
                print("reset \(email)'s second factor: they sign in with their password, then enrol again")
            }
        }
    }
}
