import ArgumentParser
import Foundation
import StratusModel
import StratusStore

struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "admin", abstract: "Manage console administrators.",
                                                    subcommands: [Create.self, List.self, Delete.self,
                                                                  ResetPassword.self, Grant.self, Revoke.self, Token.self,
                                                                  ResetTwoFactor.self])

    /// The first line of standard input, so passwords never appear in a process list or shell history; asked for
    /// with `--password-stdin`, without which a command that sets a password refuses.
    static func password(fromStdin: Bool) throws -> String {
        guard fromStdin else { throw StratusError.badRequest("pass --password-stdin and the password on standard input") }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw StratusError.badRequest("no password on standard input") }
        return line
    }
}
