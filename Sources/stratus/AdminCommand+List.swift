import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List administrators and the roles they hold.")
        @OptionGroup var options: DataOptions
        func run() throws {
            try reportingErrors {
                for (admin, roles) in try options.open().admins.allWithRoles() {
                    print("\(admin.email)\t\(roles.spelled)")
                }
            }
        }
    }
}
