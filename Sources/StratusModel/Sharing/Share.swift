/// A share record (`cloudkit.share`) as stored: what it shares (a record hierarchy from `rootRecordName`, or,
/// named `cloudkit.zoneshare`, its whole zone), who may use it, and the short GUID its URL is made of.
public struct Share: Sendable, Hashable {
    /// The record type CloudKit gives share records (lowercase k, as the live service answers).
    public static let recordType = "cloudkit.share"
    /// The record name of a share that shares its whole zone.
    public static let zoneShareName = "cloudkit.zoneshare"
    /// CloudKit's limit on participants per share.
    public static let maximumParticipants = 100

    public var recordName: String
    public var zoneID: ZoneID
    /// The record the share is for; nil for a zone share.
    public var rootRecordName: String?
    public var shortGUID: String
    public var publicPermission: SharePermission
    public var recordChangeTag: String
    public var created, modified: RecordStamp
    /// Owner first, then the others in the order they were added.
    public var participants: [ShareParticipant]
    /// The share record's own fields: CloudKit's `cloudkit.title`, `cloudkit.thumbnailImageData` and `cloudkit.type`
    /// (`CKShare.SystemFieldKey`), and any others the app sets.
    public var fields: RecordFields = [:]

    public init(recordName: String, zoneID: ZoneID, rootRecordName: String?, shortGUID: String,
                publicPermission: SharePermission,
                recordChangeTag: String, created: RecordStamp, modified: RecordStamp, participants: [ShareParticipant]) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.rootRecordName = rootRecordName
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.recordChangeTag = recordChangeTag
        self.created = created
        self.modified = modified
        self.participants = participants
    }

    public var isZoneShare: Bool { rootRecordName == nil }
    public var owner: ShareParticipant? { participants.first { $0.type == .owner } }
    public func participant(_ user: String) -> ShareParticipant? { participants.first { $0.userRecordName == user } }
}
