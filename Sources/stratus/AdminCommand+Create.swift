import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an administrator (password read from standard input).")
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Flag(help: "Read the password from standard input.") var passwordStdin = false

        func run() throws {
            try reportingErrors {
                let password = try AdminCommand.password(fromStdin: passwordStdin)
                let store = try options.open()
                let admin = try store.admins.createAdmin(email: email, password: password)
                try audited(store, "create administrator", detail: admin.email)
                print("created administrator \(admin.email)")
            }
        }
    }
}
