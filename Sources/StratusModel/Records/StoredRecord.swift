/// A record as the store keeps and returns it: system fields plus typed fields.
public struct StoredRecord: Hashable, Sendable {
    public var recordName, recordType: String
    public var zoneID: ZoneID
    public var recordChangeTag: String?
    public var fields: RecordFields
    public var created, modified: RecordStamp?
    public var deleted: Bool
    /// The `parent` system field: the record (in the same zone) this one hangs under in a share's hierarchy.
    public var parent: String?
    /// The `share` system field: the name of the share record whose root this record is.
    public var share: String?

    public init(recordName: String, recordType: String, zoneID: ZoneID = .defaultZone, recordChangeTag: String? = nil,
                fields: RecordFields = RecordFields(), created: RecordStamp? = nil, modified: RecordStamp? = nil,
                deleted: Bool = false) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.deleted = deleted
    }

    /// CloudKit's limit on a record's own data; asset content is stored apart and doesn't count.
    public static let maximumSize = 1_000_000

    public var storageSize: Int {
        fields.reduce(recordName.utf8.count + recordType.utf8.count) { $0 + $1.key.utf8.count + $1.value.storageSize }
    }

    /// Keeps only the fields named in `desiredKeys`; nil means all.
    public func keeping(_ desiredKeys: [String]?) -> StoredRecord {
        guard let desiredKeys else { return self }
        var copy = self
        let wanted = Set(desiredKeys)
        copy.fields = fields.filter { wanted.contains($0.key) }
        return copy
    }
}
