/// One CloudKit Web Services operation, named as CloudKit names it: the path after
/// `/database/1/{container}/{environment}/{database}/`. Routes, faults, telemetry and the request log speak of
/// operations through this type, so a name is spelled once.
public enum CloudKitOperation: String, Sendable, CaseIterable, Codable {
    case recordsQuery = "records/query"
    case recordsLookup = "records/lookup"
    case recordsModify = "records/modify"
    case recordsChanges = "records/changes"
    case recordsResolve = "records/resolve"
    case recordsAccept = "records/accept"
    case zonesList = "zones/list"
    case zonesLookup = "zones/lookup"
    case zonesModify = "zones/modify"
    case zonesChanges = "zones/changes"
    case changesDatabase = "changes/database"
    case changesZone = "changes/zone"
    case usersCaller = "users/caller"
    case usersCurrent = "users/current"
    case usersDiscover = "users/discover"
    case usersLookupEmail = "users/lookup/email"
    case usersLookupID = "users/lookup/id"
    /// CloudKit JS 1.x's `discoverAllContactUserInfos` (deprecated by Apple): answered with no one.
    case usersLookupContacts = "users/lookup/contacts"
    case assetsUpload = "assets/upload"
    case subscriptionsList = "subscriptions/list"
    case subscriptionsLookup = "subscriptions/lookup"
    case subscriptionsModify = "subscriptions/modify"

    /// The `users/*` operations: they name or find users, so they need a signed-in user (a server-to-server key has
    /// no identity to look up or discover with).
    public var isAboutUsers: Bool {
        switch self {
        case .usersCaller, .usersCurrent, .usersDiscover, .usersLookupEmail, .usersLookupID, .usersLookupContacts: true
        default: false
        }
    }

    /// The group the Telemetry page charts this operation's latency in.
    public var telemetry: TelemetryOperation {
        switch self {
        case .recordsQuery: .query
        case .recordsLookup, .zonesLookup, .subscriptionsLookup, .usersLookupEmail, .usersLookupID, .usersLookupContacts: .lookup
        case .recordsModify, .zonesModify, .subscriptionsModify: .modify
        case .recordsChanges, .zonesChanges, .changesDatabase, .changesZone: .changes
        case .assetsUpload: .assets
        default: .other
        }
    }
}
