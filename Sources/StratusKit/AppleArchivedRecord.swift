import Foundation

/// What an archive written by Apple's CloudKit holds of a record, under the keys its `CKRecord` encodes: `RecordType`,
/// `RecordID` (`RecordName`, `ZoneID` with `ZoneName` and `ownerName`), `ETag` (the change tag), `RecordCtime` and
/// `RecordMtime` (NSDates), `CreatorUserRecordID`, `LastModifiedUserRecordID`, and the values under `ValueStore` and
/// `EncryptedValueStore` (`RecordValues`). The parent and share references are not read: no public material says
/// how a `CKReference` is archived (docs/swift.md).
struct AppleArchivedRecord {
    var recordType: String
    var recordID: CKRecord.ID
    var changeTag: String?
    var created, modified: Date?
    var creator, modifier: CKRecord.ID?
    var values: [String: any CKRecordValueProtocol] = [:]
    var encryptedValues: [String: any CKRecordValueProtocol] = [:]

    /// Nil unless the coder holds Apple's keys (StratusKit's own archives spell them `recordType`, `recordID`, …).
    init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "RecordType"), coder.containsValue(forKey: "RecordID"),
              let type = coder.decodeObject(of: NSString.self, forKey: "RecordType"),
              let id = coder.decodeObject(of: CKRecord.ID.self, forKey: "RecordID") else { return nil }
        recordType = type as String
        recordID = id
        changeTag = coder.optionalObject(of: NSString.self, forKey: "ETag") as String?
        created = coder.optionalObject(of: NSDate.self, forKey: "RecordCtime") as Date?
        modified = coder.optionalObject(of: NSDate.self, forKey: "RecordMtime") as Date?
        creator = coder.optionalObject(of: CKRecord.ID.self, forKey: "CreatorUserRecordID")
        modifier = coder.optionalObject(of: CKRecord.ID.self, forKey: "LastModifiedUserRecordID")
        values = coder.optionalObject(of: AppleRecordValueStore.self, forKey: "ValueStore")?.values ?? [:]
        encryptedValues = coder.optionalObject(of: AppleRecordValueStore.self,
                                               forKey: "EncryptedValueStore")?.values ?? [:]
    }

    /// A record already read (an archive's root object), to copy from.
    init(record: CKRecord) {
        recordType = record.recordType
        recordID = record.recordID
        changeTag = record.recordChangeTag
        (created, modified) = (record.creationDate, record.modificationDate)
        (creator, modifier) = (record.creatorUserRecordID, record.lastModifiedUserRecordID)
        for key in record.storedKeys {
            guard let v = record.values[key] else { continue }
            if record.encryptedKeys.contains(key) { encryptedValues[key] = v } else { values[key] = v }
        }
    }

    func apply(to record: CKRecord) {
        record.recordChangeTag = changeTag
        (record.creationDate, record.modificationDate) = (created, modified)
        (record.creatorUserRecordID, record.lastModifiedUserRecordID) = (creator, modifier)
        for (key, value) in values { record.values[key] = value }
        for (key, value) in encryptedValues {
            record.values[key] = value
            record.encryptedKeys.insert(key)
        }
    }
}
