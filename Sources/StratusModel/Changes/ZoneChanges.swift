/// Changes in one zone since a sync token: records changed (latest version) and names deleted.
public struct ZoneChanges: Sendable, Hashable {
    public var zoneID: ZoneID
    public var changed: [StoredRecord]
    public var deleted: [String]
    /// Each deleted record's type, in the same order as `deleted` (empty when the type is no longer known): CloudKit's
    /// framework reports a deletion with its record type.
    public var deletedRecordTypes: [String] = []
    /// In change order, changed and deleted interleaved as they happened.
    public var syncToken: String
    public var moreComing: Bool

    public init(zoneID: ZoneID, changed: [StoredRecord], deleted: [String], syncToken: String, moreComing: Bool) {
        self.zoneID = zoneID
        self.changed = changed
        self.deleted = deleted
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}
