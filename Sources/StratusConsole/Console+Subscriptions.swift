import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// Subscriptions of a container environment, of every user and database: what each one listens for, whose it is,
/// since when; an admin can delete one (audited).
extension Console {
    func subscriptionsPage(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let emails = Dictionary(try store.users(container: scope.container).map { ($0.userRecordName, $0.email) }, uniquingKeysWith: { a, _ in a })
        let rows = try scope.env.allSubscriptions().map { sub -> [String: Any] in
            let doc = (try? JSONSerialization.jsonObject(with: Data(sub.document.utf8))) as? [String: Any] ?? [:]
            let kind = doc["subscriptionType"] as? String ?? "query"
            let query = doc["query"] as? [String: Any]
            let filters = (query?["filterBy"] as? [[String: Any]] ?? []).map { f in
                "\(f["fieldName"] as? String ?? f["systemFieldName"] as? String ?? "?") \(f["comparator"] as? String ?? "")"
            }
            let what: String = switch kind {
            case "zone": "zone " + ((doc["zoneID"] as? [String: Any])?["zoneName"] as? String ?? "")
            case "database": "the whole \(sub.scope.rawValue) database"
            default: (query?["recordType"] as? String ?? "?") + (filters.isEmpty ? "" : " where " + filters.joined(separator: " and "))
            }
            return ["id": sub.id, "kind": kind, "what": what, "database": sub.scope.rawValue, "owner": emails[sub.owner] ?? sub.owner,
                    "firesOn": (doc["firesOn"] as? [String])?.joined(separator: ", ") ?? "every change",
                    "firesOnce": doc["firesOnce"] as? Bool ?? false, "created": ValueDisplay.utcString(sub.createdAt),
                    "scope": sub.scope.rawValue, "ownerRecordName": sub.owner, "deleteAction": scope.paths.deleteSubscription()]
        }
        var values: [String: Any] = ["subscriptions": rows, "hasSubscriptions": !rows.isEmpty]
        if let m = req.query("done") { values["message"] = m }
        let json = rows.map { ["subscriptionID": $0["id"]!, "subscriptionType": $0["kind"]!, "database": $0["database"]!, "owner": $0["ownerRecordName"]!] }
        return page(req, s, scope, tab: "subscriptions", "subscriptions", title: "Subscriptions", values, json: ["subscriptions": json])
    }

    func deleteSubscription(_ req: HTTPRequest, _ s: Session, _ scope: ConsoleScope) throws -> HTTPResponse {
        let f = form(req)
        guard let db = f["scope"].flatMap(DatabaseScope.init(rawValue:)), let owner = f["owner"], let id = f["id"] else {
            throw StratusError.badRequest("Say which subscription to delete.")
        }
        try scope.env.deleteSubscription(id, in: db, owner: owner)
        try audit(s, scope, "delete subscription", "\(db.rawValue) database of \(owner): \(id)")
        return .redirect(to: scope.paths.subscriptions(done: "Deleted subscription \(id)."))
    }
}
