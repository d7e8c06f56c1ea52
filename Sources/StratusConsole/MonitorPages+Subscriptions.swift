import Foundation
import StratusAPI
import StratusHTTP
import StratusModel
import StratusStore

/// Subscriptions of a container environment, of every user and database: what each one listens for, whose it is,
/// since when; an admin can delete one (audited).
extension MonitorPages {
    func subscriptionsPage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let emails = Dictionary(try store.accounts.users(container: scope.container).map { ($0.userRecordName,
                $0.email) }, uniquingKeysWith: { a, _ in a })
        // Acting as a user: theirs only, as their devices would list them.
        let acting = scope.actingAs?.userRecordName
        if let acting { try console.auditUserDataRead(r, "subscriptions of \(acting)") }
        let mask = UserDataMask(scope)
        let rows = try scope.env.subscriptions.allSubscriptions().filter { acting == nil || $0.owner == acting }.map { sub in
            let doc = (try? JSON.parse(Data(sub.document.utf8))) ?? .object([:])
            let kind = doc["subscriptionType"]?.string ?? "query"
            let query = doc["query"]
            let filters = (query?["filterBy"]?.array ?? []).map { f in
                "\(f["fieldName"]?.string ?? f["systemFieldName"]?.string ?? "?") \(f["comparator"]?.string ?? "")"
            }
            let what: String = switch kind {
            case "zone": "zone " + (doc["zoneID"]?["zoneName"]?.string ?? "")
            case "database": "the whole \(sub.scope.rawValue) database"
            default: (query?["recordType"]?.string ?? "?") + (filters.isEmpty ? "" : " where " + filters.joined(separator: " and "))
            }
            return SubscriptionsView.Subscription(
                id: sub.id, kind: kind, what: what, database: sub.scope.rawValue, owner: emails[sub.owner].map(mask.email) ?? sub.owner,
                firesOn: doc["firesOn"]?.array.map { $0.compactMap(\.string).joined(separator: ", ") } ?? "every change",
                firesOnce: doc["firesOnce"]?.bool ?? false, created: ValueDisplay.utcString(sub.createdAt),
                scope: sub.scope.rawValue, ownerRecordName: sub.owner, deleteAction: scope.paths.deleteSubscription())
        }
        let json = rows.map { SubscriptionsView.SubscriptionJSON(subscriptionID: $0.id, subscriptionType: $0.kind,
                                                                 database: $0.database, owner: $0.ownerRecordName) }
        return page(r, tab: .subscriptions, "subscriptions", title: "Subscriptions",
                    SubscriptionsView(subscriptions: rows, hasSubscriptions: !rows.isEmpty,
                                      message: req.query("done")), json: ["subscriptions": json])
    }

    /// `subscriptions.mustache`: every subscription of the environment, by database and owner.
    struct SubscriptionsView: Encodable {
        struct Subscription: Encodable {
            let id, kind, what, database, owner, firesOn: String
            let firesOnce: Bool
            let created, scope, ownerRecordName, deleteAction: String
        }
        struct SubscriptionJSON: Encodable { let subscriptionID, subscriptionType, database, owner: String }
        let subscriptions: [Subscription]
        let hasSubscriptions: Bool
        let message: String?
    }

    func deleteSubscription(_ r: ConsoleRequest) throws -> HTTPResponse {
        let f = form(r.request)
        guard let db = f["scope"].flatMap(DatabaseScope.init(rawValue:)), let owner = f["owner"], let id = f["id"] else {
            throw StratusError.badRequest("Say which subscription to delete.")
        }
        try r.scope.env.subscriptions.deleteSubscription(id, in: db, owner: owner)
        try audit(r.session, r.scope, "delete subscription", "\(db.rawValue) database of \(owner): \(id)")
        return .redirect(to: r.scope.paths.subscriptions(done: "Deleted subscription \(id)."))
    }
}
