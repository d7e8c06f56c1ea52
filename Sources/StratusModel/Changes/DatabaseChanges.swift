/// Zones changed or deleted in a database since a sync token.
public struct DatabaseChanges: Sendable, Hashable {
    public var changedZones: [RecordZone]
    public var deletedZones: [ZoneID]
    public var syncToken: String
    public var moreComing: Bool

    public init(changedZones: [RecordZone], deletedZones: [ZoneID], syncToken: String, moreComing: Bool) {
        self.changedZones = changedZones
        self.deletedZones = deletedZones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}
