import ArgumentParser
import Foundation
import StratusAPI
import StratusModel
import StratusStore

extension RecordsCommand {
    struct Target: ParsableArguments {
        @OptionGroup var named: EnvironmentOptions
        @Option(help: "public, private or shared.") var database: String = "public"
        @Option(help: "The user whose private or shared database it is: an email address or a user record name (_…).") var user: String?
        @Option(help: "Only this zone (import: every record into this zone).") var zone: String?

        var container: String { named.container }
        var environment: String { named.environment }
        var options: DataOptions { named.data }

        /// `existing`: the user must be there already (an export); an import may create a user's first data.
        func open(existing: Bool) throws -> (EnvironmentStore, DatabaseID) {
            let t = try named.open()
            let (store, c, env) = (t.store, t.container, try t.env)
            guard let scope = DatabaseScope(rawValue: database) else { throw StratusError.badRequest("--database must be public, private or shared") }
            if scope == .public { return (env, .publicDatabase) }
            guard let user, !user.isEmpty else { throw StratusError.badRequest("--database \(database) needs --user (an email address or a user record name)") }
            // As `users purge` names users: an account by email or record name. A record name without an account
            // (a user signed in by token only) is taken when its database holds data; anything else is an error
            // naming the user, never an export of nothing.
            if let account = try store.accounts.user(container: c, named: user) { return (env, DatabaseID(scope: scope,
                    ownerRecordName: account.userRecordName)) }
            if !user.contains("@"), try !existing || env.records.privateDataByOwner()[user] != nil { return (env,
                    DatabaseID(scope: scope, ownerRecordName: user)) }
            throw StratusError(.notFound,
                               "there is no user '\(user)' in \(c): give an email address or a user record name (stratus users list)")
        }
    }
}
