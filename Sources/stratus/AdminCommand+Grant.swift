import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension AdminCommand {
    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Grant an administrator a role in a container, or in every container.",
            discussion: """
                owner: everything, administrators too; admin: everything in its containers except administrators; \
                developer: Development freely, Production read-only without its users' data; viewer: reads only. \
                A role granted where one is held replaces it.
                """)
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Option(help: "owner, admin, developer or viewer.") var role: String
        @Option(help: "The container (every container without it).") var container: String?

        func run() throws {
            try reportingErrors {
                let role = try AdminRole(parsing: role)
                let container = try container.map { try ContainerID($0) }
                let store = try options.open()
                try store.admins.grant(role, email: email, container: container)
                let place = container.map { "in \($0)" } ?? "in every container"
                try audited(store, "grant role", detail: "\(email): \(role.rawValue) \(place)")
                print("\(email) is \(role.rawValue) \(place)")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take the role an administrator holds in a container, or over every container.")
        @OptionGroup var options: DataOptions
        @Option var email: String
        @Option(help: "The container (without it, the role over every container).") var container: String?

        func run() throws {
            try reportingErrors {
                let container = try container.map { try ContainerID($0) }
                let store = try options.open()
                try store.admins.revoke(email: email, container: container)
                let place = container.map { "in \($0)" } ?? "over every container"
                try audited(store, "revoke role", detail: "\(email) \(place)")
                print("revoked \(email)'s role \(place)")
            }
        }
    }
}
