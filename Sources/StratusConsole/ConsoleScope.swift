import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Where a console page is: container, environment and, for data pages, the database (and whose, for private
/// and shared ones). Built from the URL, so every page is bookmarkable; templates get it as `scope`.
struct ConsoleScope {
    let container: ContainerID
    let environment: ContainerEnvironment
    let env: EnvironmentStore
    var database: DatabaseScope?
    /// The container user whose private or shared database is browsed.
    var user: String?
    /// Whether users' private and shared data may be browsed here (not in Production unless the server allows it):
    /// when not, the database switch offers no links that would only be refused.
    var userDataBrowsable = true
    /// The user the admin's session acts as here ("Act as"), shown in a banner on every page of the environment.
    var actingAs: ContainerUser?

    /// Every console URL of this environment (see ConsolePaths).
    var paths: ConsolePaths { ConsolePaths(container: container, environment: environment) }
    /// The pages of the database browsed, as the user browsed (`as=`) when it is a private or shared one.
    var db: ConsolePaths.DatabasePaths { paths.database(database ?? .public, as: user) }

    /// The database to read, or nil when a private/shared page still needs a user to be chosen.
    var databaseID: DatabaseID? {
        switch database {
        case .public, nil: .publicDatabase
        case .private: user.map(DatabaseID.privateDatabase(of:))
        case .shared: user.map(DatabaseID.sharedDatabase(of:))
        }
    }

    var isProduction: Bool { environment == .production }

    /// What the header shows: the environment (Production in its own colours), switches and the page tabs.
    func header(tab: ConsoleTab) -> ConsoleHeader {
        let p = paths
        typealias Link = ConsoleHeader.Link
        func link(_ label: String, _ href: String, _ id: ConsoleTab, key: String = "") -> Link { Link(label: label,
                href: href, current: tab == id, key: key) }
        var settings = [link("Tokens & keys", p.tokens(), .tokens), link("Sign-in", p.signIn(), .signIn),
                        link("Faults", p.faults(), .faults)]
        if !isProduction { settings.append(link("Reset", p.reset(), .reset)) }
        let sections = [
            ConsoleHeader.Section(id: "data", label: "Data", links: [
                link("Records", db.records(), .records, key: "r"), link("Zones", db.zones(), .zones,
                        key: "z"), link("Users", p.users(), .users, key: "u"),
            ] + (userDataBrowsable ? [link("Act as a user", p.actAs(), .actAs, key: "a")] : []) + [
                link("Subscriptions", p.subscriptions(), .subscriptions), link("Sharing", p.sharing(),
                        .sharing), link("Import", p.importPage(), .importRecords),
            ]),
            ConsoleHeader.Section(id: "schema", label: "Schema", links: [
                link("Record types", p.schema(), .schema, key: "s"), link("Indexes & query shapes", p.queryShapes(),
                        .shapes),
                link("Security roles", p.roles(), .roles), link("Deploy", ConsolePaths.deploy(container), .deploy),
                link("History", ConsolePaths.deployHistory(container), .history),
            ]),
            ConsoleHeader.Section(id: "monitor", label: "Monitor", links: [
                link("Telemetry", p.telemetry(), .telemetry, key: "t"), link("Logs", p.logs(), .logs, key: "l"),
                link("Notifications", p.notifications(), .notifications), link("Webhooks", p.webhooks(), .webhooks),
            ]),
            ConsoleHeader.Section(id: "settings", label: "Settings", links: settings),
        ]
        let environments = ContainerEnvironment.allCases.map { e in
            Link(label: e == .production ? "Production" : "Development", href: ConsolePaths.environment(container, e),
                 current: e == environment)
        }
        let databases = DatabaseScope.allCases.map { d in
            Link(label: d.rawValue.capitalized, href: tab == .zones ? p.database(d).zones() : p.database(d).records(),
                 current: d == (database ?? .public) && tab != .home, refused: d != .public && !userDataBrowsable)
        }
        return ConsoleHeader(
            container: container.rawValue, environment: environment.rawValue,
            environmentLabel: isProduction ? "Production" : "Development", isProduction: isProduction,
            database: database?.rawValue ?? "public", overview: link("Overview", p.home(), .home,
                                                                     key: "h"), sections: sections,
            environments: environments, databases: databases, showDatabases: tab == .records || tab == .zones,
            publicRecordsPath: p.database(.public).records(), publicZonesPath: p.database(.public).zones(),
            privateRecordsPath: p.database(.private).records(), sharedRecordsPath: p.database(.shared).records(),
            webhooksPath: p.webhooks(), rolesPath: p.roles(), createRolePath: p.createRole(), schemaImportPath: p.schemaImport(),
            recordTypesPath: p.recordTypes(), tokensPath: p.tokens(), keysPath: p.keys(), deployPath: ConsolePaths.deploy(container),
            userDataBrowsable: userDataBrowsable)
    }

    var crumbs: [Crumb] {
        [Crumb(href: ConsolePaths.home, label: "Containers"), Crumb(href: paths.home(),
                                                                    label: "\(container.rawValue) · \(isProduction ? "Production" : "Development")")]
    }
}
