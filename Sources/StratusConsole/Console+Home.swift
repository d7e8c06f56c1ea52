import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// A container environment's home: databases, the public zones, and the users whose data can be browsed.
extension Console {
    func homePage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let env = scope.env
        let schema = try env.schema()
        let counts = try env.recordCountsByZone(in: .publicDatabase)
        let zones = try env.zones(in: .publicDatabase).map { z -> [String: Any] in
            ["name": z.zoneID.zoneName, "count": counts[z.zoneID.zoneName] ?? 0,
             "href": scope.paths.database(.public).records([("zone", z.zoneID.zoneName)])]
        }
        let users = try userValues(scope)
        let browsable = scope.userDataBrowsable
        let usage = try env.storageUsage()
        let storage = "\(ValueDisplay.byteCount(usage.totalBytes)) (records \(ValueDisplay.byteCount(usage.recordBytes)), assets \(ValueDisplay.byteCount(usage.assetBytes)))"
            + (usage.quotaBytes.map { " of a \(ValueDisplay.byteCount($0)) quota" } ?? ", no quota")
        var values: [String: Any] = [
            "recordCount": try env.recordCount(), "typeCount": schema.recordTypes.count, "zones": zones,
            "users": users, "hasUsers": !users.isEmpty, "browsable": browsable, "storage": storage, "overQuota": usage.exceeds(),
        ]
        if let m = req.query("done") { values["message"] = m }
        var json: [String: Any] = ["container": scope.container.rawValue, "environment": scope.environment.rawValue,
                                   "recordCount": values["recordCount"]!, "recordTypes": schema.recordTypes.map(\.name),
                                   "users": users.map { ["userRecordName": $0["userRecordName"]!, "email": $0["email"]!] }]
        json["storage"] = ["recordBytes": usage.recordBytes, "assetBytes": usage.assetBytes, "quotaBytes": usage.quotaBytes as Any]
        return page(req, s, scope, tab: "home", "home", title: "Home", values, json: json)
    }

    func userValues(_ scope: ConsoleScope) throws -> [[String: Any]] {
        try store.users(container: scope.container).map { u in
            ["userRecordName": u.userRecordName, "email": u.email, "name": "\(u.firstName) \(u.lastName)".trimmingCharacters(in: .whitespaces),
             "privateHref": scope.paths.database(.private, as: u.userRecordName).records(),
             "sharedHref": scope.paths.database(.shared, as: u.userRecordName).records(),
             "privateZonesHref": scope.paths.database(.private, as: u.userRecordName).zones(),
             "signOutAction": scope.paths.signOutUser(u.userRecordName), "purgeAction": scope.paths.purgeUser(u.userRecordName)]
        }
    }

    /// Signs a container user out everywhere (both environments): their web auth tokens and web courier tokens stop
    /// working, and their open notification streams end. Audited.
    func signUserOut(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let name = req.parameters["user"] ?? ""
        guard let user = try store.user(container: scope.container, userRecordName: name) else {
            throw StratusError(.notFound, "There is no such user in this container.")
        }
        let sessions = try store.signOutEverywhere(container: scope.container, userRecordName: user.userRecordName)
        try audit(s, scope, "sign user out everywhere", "\(user.userRecordName) (\(sessions) session\(sessions == 1 ? "" : "s"))")
        return .redirect(to: scope.paths.home(done: "Signed \(user.email) out everywhere: \(sessions) session\(sessions == 1 ? "" : "s") ended."))
    }

    /// Deletes a user's private data in this environment as CloudKit's "delete this app's data" does (see
    /// `EnvironmentStore.purgeUserData`): their apps then meet USER_DELETED_ZONE. Audited.
    func purgeUserData(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let name = req.parameters["user"] ?? ""
        guard let user = try store.user(container: scope.container, userRecordName: name) else {
            throw StratusError(.notFound, "There is no such user in this container.")
        }
        let zones = try scope.env.purgeUserData(user.userRecordName)
        try audit(s, scope, "delete user's data", "\(user.userRecordName) (\(zones) zone\(zones == 1 ? "" : "s"))")
        return .redirect(to: scope.paths.home(done: "Deleted \(user.email)'s data in \(scope.environment.rawValue): \(zones) zone\(zones == 1 ? "" : "s") purged."))
    }

    /// Private and shared pages need a user first: this page lists them.
    func chooseUserPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope, tab: String) throws -> HTTPResponse {
        let users = try store.users(container: scope.container).map { u -> [String: Any] in
            let db = scope.paths.database(scope.database ?? .private, as: u.userRecordName)
            return ["email": u.email, "userRecordName": u.userRecordName, "href": tab == "zones" ? db.zones() : db.records()]
        }
        if scope.isProduction && !allowProductionUserData {
            throw StratusError(.accessDenied, "Browsing users' data in Production needs the server to be started with --allow-production-user-data.")
        }
        return page(req, s, scope, tab: tab, "choose-user", title: "Choose a user", ["users": users, "hasUsers": !users.isEmpty, "database": scope.database?.rawValue ?? ""],
                    json: ["users": users.map { ["userRecordName": $0["userRecordName"]!, "email": $0["email"]!] }])
    }
}
