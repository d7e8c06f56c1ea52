import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Where a console page is: container, environment and, for data pages, the database (and whose, for private
/// and shared ones). Built from the URL, so every page is bookmarkable; templates get it as `scope`.
struct ConsoleScope {
    let container: ContainerID
    let environment: Environment
    let env: EnvironmentStore
    var database: DatabaseScope?
    /// The container user whose private or shared database is browsed.
    var user: String?
    /// Whether users' private and shared data may be browsed here (not in Production unless the server allows it):
    /// when not, the database switch offers no links that would only be refused.
    var userDataBrowsable = true

    var base: String { "/console/\(container.rawValue)/\(environment.rawValue)" }
    var databasePath: String { "\(base)/\(database?.rawValue ?? "public")" }
    /// `as=…` for links inside a user's database, or "".
    var userQuery: String { user.map { "as=\(Console.queryEscape($0))" } ?? "" }

    /// The database to read, or nil when a private/shared page still needs a user to be chosen.
    var databaseID: DatabaseID? {
        switch database {
        case .public, nil: .publicDatabase
        case .private: user.map(DatabaseID.privateDatabase(of:))
        case .shared: user.map(DatabaseID.sharedDatabase(of:))
        }
    }

    var isProduction: Bool { environment == .production }

    func link(_ path: String, _ query: [(String, String?)] = []) -> String {
        var items = query.compactMap { k, v in v.map { "\(k)=\(Console.queryEscape($0))" } }
        if !userQuery.isEmpty { items.append(userQuery) }
        return items.isEmpty ? path : path + "?" + items.joined(separator: "&")
    }

    /// What the header shows: the environment (Production in its own colours), switches and the page tabs.
    func values(tab: String) -> [String: Any] {
        let other: Environment = isProduction ? .development : .production
        let dbName = database?.rawValue ?? "public"
        var tabs: [[String: Any]] = [
            ["label": "Home", "href": base + "/", "current": tab == "home"],
            ["label": "Zones", "href": "\(base)/\(dbName)/zones" + (user.map { "?as=\(Console.queryEscape($0))" } ?? ""), "current": tab == "zones"],
            ["label": "Records", "href": "\(base)/\(dbName)/records" + (user.map { "?as=\(Console.queryEscape($0))" } ?? ""), "current": tab == "records"],
            ["label": "Schema", "href": base + "/schema", "current": tab == "schema"],
            ["label": "Security roles", "href": base + "/roles", "current": tab == "roles"],
            ["label": "Deploy", "href": "/console/\(container.rawValue)/deploy", "current": tab == "deploy"],
            ["label": "Subscriptions", "href": base + "/subscriptions", "current": tab == "subscriptions"],
            ["label": "Notifications", "href": base + "/notifications", "current": tab == "notifications"],
            ["label": "Webhooks", "href": base + "/webhooks", "current": tab == "webhooks"],
            ["label": "Sharing", "href": base + "/sharing", "current": tab == "sharing"],
            ["label": "Query shapes", "href": base + "/query-shapes", "current": tab == "shapes"],
            ["label": "Import", "href": base + "/import", "current": tab == "import"],
            ["label": "Telemetry", "href": base + "/telemetry", "current": tab == "telemetry"],
            ["label": "Logs", "href": base + "/logs", "current": tab == "logs"],
            ["label": "Faults", "href": base + "/faults", "current": tab == "faults"],
            ["label": "Tokens & keys", "href": base + "/tokens", "current": tab == "tokens"],
        ]
        if !isProduction { tabs.append(["label": "Reset", "href": base + "/reset", "current": tab == "reset"]) }
        let databases = DatabaseScope.allCases.map { d -> [String: Any] in
            ["label": d.rawValue.capitalized, "href": "\(base)/\(d.rawValue)/\(tab == "zones" ? "zones" : "records")", "current": d == (database ?? .public) && tab != "home",
             "refused": d != .public && !userDataBrowsable]
        }
        return [
            "container": container.rawValue,
            "environment": environment.rawValue,
            "environmentLabel": isProduction ? "Production" : "Development",
            "isProduction": isProduction,
            "otherEnvironmentLabel": isProduction ? "Development" : "Production",
            "otherEnvironmentHref": "/console/\(container.rawValue)/\(other.rawValue)/",
            "database": dbName,
            "tabs": tabs,
            "databases": databases,
            "showDatabases": tab == "records" || tab == "zones",
            "base": base,
            "databasePath": databasePath,
            "userDataBrowsable": userDataBrowsable,
        ]
    }

    var crumbs: [[String: String]] {
        [["href": "/console/", "label": "Containers"], ["href": base + "/", "label": "\(container.rawValue) · \(isProduction ? "Production" : "Development")"]]
    }
}
