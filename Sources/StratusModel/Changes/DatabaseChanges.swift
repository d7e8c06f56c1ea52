/// Zones changed or deleted in a database since a sync token.
public struct DatabaseChanges: Sendable, Hashable {
    public var changedZones: [RecordZone]
    public var deletedZones: [ZoneID]
    /// Why each deleted zone went, in the order of `deletedZones` (missing entries: `.deleted`).
    public var deletionReasons: [ZoneDeletionReason] = []
    public var syncToken: String
    public var moreComing: Bool

    public init(changedZones: [RecordZone], deletedZones: [ZoneID], syncToken: String, moreComing: Bool) {
        self.changedZones = changedZones
        self.deletedZones = deletedZones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}
