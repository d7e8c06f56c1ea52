import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension UsersCommand {
    struct List: ContainerWideCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's users (user record name, email).")
        @OptionGroup var target: ContainerOptions

        func run(_ t: ContainerTarget) throws {
            for u in try t.store.accounts.users(container: t.container) { print("\(u.userRecordName)\t\(u.email)") }
        }
    }
}
