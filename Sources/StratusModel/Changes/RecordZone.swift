/// A zone as listed: its identity, its current sync token, and whether it supports atomic batches.
public struct RecordZone: Sendable, Hashable {
    public var zoneID: ZoneID
    public var syncToken: String
    public var atomic: Bool
    /// The record name of the zone's zone-wide share (`cloudkit.zoneshare`), when it has one: CloudKit's
    /// `CKRecordZone.share`, by which an app knows the zone is shared already.
    public var share: String?

    public init(zoneID: ZoneID, syncToken: String, atomic: Bool, share: String? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
        self.share = share
    }
}
