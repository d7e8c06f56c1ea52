/// What one participant may do in one zone an owner shares with them: the whole zone (a zone share), or the
/// hierarchies of some shares. Worked out once per request, so reads filter by share, never record by record.
public struct SharedZoneAccess: Sendable, Hashable {
    public var owner, zoneName: String
    /// Set when a zone share covers the zone: every record in it, with this permission.
    public var zonePermission: SharePermission?
    /// Hierarchy shares the participant has accepted in the zone: share row id → permission.
    public var shares: [Int64: SharePermission]

    public init(owner: String, zoneName: String, zonePermission: SharePermission?, shares: [Int64: SharePermission]) {
        self.owner = owner
        self.zoneName = zoneName
        self.zonePermission = zonePermission
        self.shares = shares
    }

    public var zoneID: ZoneID { ZoneID(zoneName: zoneName, ownerRecordName: owner) }
    public var ownerDatabase: DatabaseID { .privateDatabase(of: owner) }
    public var canWriteSomewhere: Bool { zonePermission?.allowsWrite == true || shares.values.contains(.readWrite) }
}
