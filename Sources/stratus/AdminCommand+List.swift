import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List administrators.")
        @OptionGroup var options: DataOptions
        func run() throws { try reportingErrors { for a in try options.open().admins.all() { print(a.email) } } }
    }
}
