/// A zone as listed: its identity, its current sync token, and whether it supports atomic batches.
public struct RecordZone: Sendable, Hashable {
    public var zoneID: ZoneID
    public var syncToken: String
    public var atomic: Bool

    public init(zoneID: ZoneID, syncToken: String, atomic: Bool) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
    }
}
