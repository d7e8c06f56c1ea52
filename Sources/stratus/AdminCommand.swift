import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "admin", abstract: "Manage console administrators.",
                                                    subcommands: [Create.self, List.self, Delete.self, ResetPassword.self])

    /// The first line of standard input, so passwords never appear in a process list or shell history.
    static func passwordFromStdin() throws -> String {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw StratusError.badRequest("no password on standard input") }
        return line
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an administrator (password read from standard input).")
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Flag(help: "Read the password from standard input.") var passwordStdin = false

        func run() throws {
            try reportingErrors {
                guard passwordStdin else { throw StratusError.badRequest("pass --password-stdin and the password on standard input") }
                let store = try options.open()
                let admin = try store.admins.createAdmin(email: email, password: try AdminCommand.passwordFromStdin())
                try audited(store, "create administrator", detail: admin.email)
                print("created administrator \(admin.email)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List administrators.")
        @OptionGroup var options: DataOptions
        func run() throws { try reportingErrors { for a in try options.open().admins.all() { print(a.email) } } }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an administrator and end their sessions.")
        @OptionGroup var options: DataOptions
        @Option var email: String
        func run() throws { try reportingErrors { let store = try options.open(); try store.admins.deleteAdmin(email: email); try audited(store, "delete administrator", detail: email); print("deleted administrator \(email)") } }
    }

    struct ResetPassword: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "reset-password", abstract: "Set a new password (from standard input) and end the administrator's sessions.")
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Flag(help: "Read the password from standard input.") var passwordStdin = false
        func run() throws {
            try reportingErrors {
                guard passwordStdin else { throw StratusError.badRequest("pass --password-stdin and the password on standard input") }
                let store = try options.open()
                try store.admins.resetAdminPassword(email: email, password: try AdminCommand.passwordFromStdin())
                try audited(store, "reset administrator password", detail: email)
                print("reset the password of \(email)")
            }
        }
    }
}
