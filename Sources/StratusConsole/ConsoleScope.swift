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
    func header(tab: String) -> ConsoleHeader {
        let p = paths
        typealias Link = ConsoleHeader.Link
        var tabs: [Link] = [
            Link(label: "Home", href: p.home(), current: tab == "home"),
            Link(label: "Zones", href: db.zones(), current: tab == "zones"),
            Link(label: "Records", href: db.records(), current: tab == "records"),
            Link(label: "Schema", href: p.schema(), current: tab == "schema"),
            Link(label: "Security roles", href: p.roles(), current: tab == "roles"),
            Link(label: "Deploy", href: ConsolePaths.deploy(container), current: tab == "deploy"),
            Link(label: "Subscriptions", href: p.subscriptions(), current: tab == "subscriptions"),
            Link(label: "Notifications", href: p.notifications(), current: tab == "notifications"),
            Link(label: "Webhooks", href: p.webhooks(), current: tab == "webhooks"),
            Link(label: "Sharing", href: p.sharing(), current: tab == "sharing"),
            Link(label: "Query shapes", href: p.queryShapes(), current: tab == "shapes"),
            Link(label: "Import", href: p.importPage(), current: tab == "import"),
            Link(label: "Telemetry", href: p.telemetry(), current: tab == "telemetry"),
            Link(label: "Logs", href: p.logs(), current: tab == "logs"),
            Link(label: "Faults", href: p.faults(), current: tab == "faults"),
            Link(label: "Tokens & keys", href: p.tokens(), current: tab == "tokens"),
        ]
        if !isProduction { tabs.append(Link(label: "Reset", href: p.reset(), current: tab == "reset")) }
        let databases = DatabaseScope.allCases.map { d in
            Link(label: d.rawValue.capitalized, href: tab == "zones" ? p.database(d).zones() : p.database(d).records(),
                 current: d == (database ?? .public) && tab != "home", refused: d != .public && !userDataBrowsable)
        }
        return ConsoleHeader(
            container: container.rawValue, environment: environment.rawValue,
            environmentLabel: isProduction ? "Production" : "Development", isProduction: isProduction,
            otherEnvironmentLabel: isProduction ? "Development" : "Production", otherEnvironmentHref: p.otherEnvironment(),
            database: database?.rawValue ?? "public", tabs: tabs, databases: databases, showDatabases: tab == "records" || tab == "zones",
            publicRecordsPath: p.database(.public).records(), publicZonesPath: p.database(.public).zones(),
            privateRecordsPath: p.database(.private).records(), sharedRecordsPath: p.database(.shared).records(),
            webhooksPath: p.webhooks(), rolesPath: p.roles(), createRolePath: p.createRole(), schemaImportPath: p.schemaImport(),
            recordTypesPath: p.recordTypes(), tokensPath: p.tokens(), keysPath: p.keys(), deployPath: ConsolePaths.deploy(container),
            userDataBrowsable: userDataBrowsable)
    }

    var crumbs: [Crumb] {
        [Crumb(href: ConsolePaths.home, label: "Containers"), Crumb(href: paths.home(), label: "\(container.rawValue) · \(isProduction ? "Production" : "Development")")]
    }
}
