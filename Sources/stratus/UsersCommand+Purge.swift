import ArgumentParser
import Foundation
import StratusModel
import StratusStore

extension UsersCommand {
    struct Purge: EnvironmentCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user's private data in one environment, as CloudKit's \"delete this app's data\" in Settings does.",
            discussion: """
            Every custom zone of the user's private database is deleted with the reason "purged": the app's next request
            into it answers USER_DELETED_ZONE (CKError.userDeletedZone) until it creates the zone again. The default zone
            is emptied, and sync tokens taken before answer CHANGE_TOKEN_EXPIRED.
            """)

        @OptionGroup var target: EnvironmentOptions
        @Option(help: "The user: a user record name (_…) or an email address.") var user: String
        @Option(help: "purged (the user deleted the app's data) or encrypted-data-reset (the user reset their encrypted data).") var reason: String = "purged"

        func run(_ t: EnvironmentTarget) throws {
            let c = t.container
            guard let u = try t.store.accounts.user(container: c, named: user) else { throw StratusError(.notFound,
                    "there is no user '\(user)' in \(t.container)") }
            let why: ZoneDeletionReason
            switch reason {
            case "purged": why = .purged
            case "encrypted-data-reset": why = .encryptedDataReset
            default: throw StratusError.badRequest("--reason is purged or encrypted-data-reset")
            }
            let zones = try t.env.zones.purgeUserData(u.userRecordName, reason: why)
            try t.audit("purge user data", u.userRecordName)
            print("purged \(u.userRecordName) (\(u.email)) in \(t.environment.rawValue): \(zones) zone\(zones == 1 ? "" : "s")")
        }
    }
}
