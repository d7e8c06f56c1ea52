import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct ResetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset-password",
                                                        abstract: "Set a new password (from standard input) and end the administrator's sessions.")
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Flag(help: "Read the password from standard input.") var passwordStdin = false
        func run() throws {
            try reportingErrors {
                let password = try AdminCommand.password(fromStdin: passwordStdin), store = try options.open()
                try store.admins.resetAdminPassword(email: email, password: password)
                try audited(store, "reset administrator password", detail: email)
                print("reset the password of \(email)")
            }
        }
    }
}
