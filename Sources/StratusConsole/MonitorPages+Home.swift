import Foundation
import StratusHTTP
import StratusModel
import StratusStore

/// A container environment's overview: databases, the public zones, storage, and how many users it has.
extension MonitorPages {
    func homePage(_ r: ConsoleRequest) throws -> HTTPResponse {
        let (req, scope) = (r.request, r.scope)
        let env = scope.env
        let schema = try env.schema.current()
        let counts = try env.records.recordCountsByZone(in: .publicDatabase)
        let zones = try env.zones.all(in: .publicDatabase).map { z in
            HomeView.Zone(name: z.zoneID.zoneName, count: counts[z.zoneID.zoneName] ?? 0,
                          href: scope.paths.database(.public).records([("zone", z.zoneID.zoneName)]))
        }
        let users = try store.accounts.users(container: scope.container)
        let usage = try env.quota.storageUsage()
        let storage = "\(ValueDisplay.byteCount(usage.totalBytes)) (records \(ValueDisplay.byteCount(usage.recordBytes)), assets \(ValueDisplay.byteCount(usage.assetBytes)))"
            + (usage.quotaBytes.map { " of a \(ValueDisplay.byteCount($0)) quota" } ?? ", no quota")
        let recordCount = try env.records.recordCount()
        let view = HomeView(recordCount: recordCount, typeCount: schema.recordTypes.count, zones: zones,
                            usersSigned: users.count == 1 ? "1 user has" : "\(users.count) users have",
                usersHref: scope.paths.users(),
                            actAsHref: scope.userDataBrowsable ? scope.paths.actAs() : nil, storage: storage, overQuota: usage.exceeds(), message: req.query("done"))
        let json = HomeView.JSON(container: scope.container.rawValue, environment: scope.environment.rawValue,
                                 recordCount: recordCount,
                                 recordTypes: schema.recordTypes.map(\.name), users: users.map { UserJSON(userRecordName: $0.userRecordName, email: UserDataMask(scope).email($0.email)) },
                                 storage: .init(recordBytes: usage.recordBytes, assetBytes: usage.assetBytes,
                                                quotaBytes: usage.quotaBytes))
        return page(r, tab: .home, "home", title: "Home", view, json: json)
    }

    /// `home.mustache`.
    struct HomeView: Encodable {
        struct Zone: Encodable { let name: String; let count: Int; let href: String }
        struct JSON: Encodable {
            struct Storage: Encodable {
                let recordBytes, assetBytes: Int64
                let quotaBytes: Int64?
                func encode(to encoder: any Encoder) throws {
                    enum Keys: String, CodingKey { case recordBytes, assetBytes, quotaBytes }
                    var c = encoder.container(keyedBy: Keys.self)
                    try c.encode(recordBytes, forKey: .recordBytes)
                    try c.encode(assetBytes, forKey: .assetBytes)
                    try c.encode(quotaBytes, forKey: .quotaBytes)   // null without a quota
                }
            }
            let container, environment: String
            let recordCount: Int
            let recordTypes: [String]
            let users: [UserJSON]
            let storage: Storage
        }
        let recordCount, typeCount: Int
        let zones: [Zone]
        let usersSigned, usersHref: String
        let actAsHref: String?
        let storage: String
        let overQuota: Bool
        let message: String?
    }

}
