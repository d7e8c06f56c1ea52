import StratusKit

/// `CKRecord`, its ID, reference, keys and `encryptedValues`, `CKAsset`, and `CKRecordZone` with its ID and
/// capabilities, as Apple declares them for iOS 17 / macOS 14.
func ckRecordConformance() {
    let _: (CKRecord.RecordType) -> CKRecord = CKRecord.init(recordType:)
    let _: (CKRecord.RecordType, CKRecord.ID) -> CKRecord = CKRecord.init(recordType:recordID:)
    let _: (CKRecord.RecordType, CKRecordZone.ID) -> CKRecord = CKRecord.init(recordType:zoneID:)
    let _: (NSCoder) -> CKRecord? = CKRecord.init(coder:)
    let _: KeyPath<CKRecord, CKRecord.RecordType> = \CKRecord.recordType
    let _: KeyPath<CKRecord, CKRecord.ID> = \CKRecord.recordID
    let _: KeyPath<CKRecord, String?> = \CKRecord.recordChangeTag
    let _: KeyPath<CKRecord, CKRecord.ID?> = \CKRecord.creatorUserRecordID
    let _: KeyPath<CKRecord, Date?> = \CKRecord.creationDate
    let _: KeyPath<CKRecord, CKRecord.ID?> = \CKRecord.lastModifiedUserRecordID
    let _: KeyPath<CKRecord, Date?> = \CKRecord.modificationDate
    let _: ReferenceWritableKeyPath<CKRecord, CKRecord.Reference?> = \CKRecord.parent
    let _: KeyPath<CKRecord, CKRecord.Reference?> = \CKRecord.share
    let _: (CKRecord) -> (CKRecord?) -> Void = CKRecord.setParent(_:)
    let _: (CKRecord) -> (CKRecord.ID?) -> Void = CKRecord.setParent(_:)
    let _: (CKRecord) -> () -> [CKRecord.FieldKey] = CKRecord.allKeys
    let _: (CKRecord) -> () -> [CKRecord.FieldKey] = CKRecord.changedKeys
    let _: (CKRecord) -> () -> [String] = CKRecord.allTokens
    let _: (CKRecord) -> (NSCoder) -> Void = CKRecord.encodeSystemFields(with:)
    let _: KeyPath<CKRecord, any CKRecordKeyValueSetting & Sendable> = \CKRecord.encryptedValues
    let _: CKRecord.RecordType = CKRecord.SystemType.userRecord
    let _: CKRecord.RecordType = CKRecord.SystemType.share
    let _: String = CKRecordNameZoneWideShare
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.parent
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.share
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.recordID
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.creationDate
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.modificationDate
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.creatorUserRecordID
    let _: CKRecord.FieldKey = CKRecord.SystemFieldKey.lastModifiedUserRecordID

    // CKRecord.ID.
    let _: (String) -> CKRecord.ID = CKRecord.ID.init(recordName:)
    let _: (String, CKRecordZone.ID) -> CKRecord.ID = CKRecord.ID.init(recordName:zoneID:)
    let _: (NSCoder) -> CKRecord.ID? = CKRecord.ID.init(coder:)
    let _: KeyPath<CKRecord.ID, String> = \CKRecord.ID.recordName
    let _: KeyPath<CKRecord.ID, CKRecordZone.ID> = \CKRecord.ID.zoneID

    // CKRecord.Reference.
    let _: (CKRecord.ID, CKRecord.ReferenceAction) -> CKRecord.Reference = CKRecord.Reference.init(recordID:action:)
    let _: (CKRecord, CKRecord.ReferenceAction) -> CKRecord.Reference = CKRecord.Reference.init(record:action:)
    let _: KeyPath<CKRecord.Reference, CKRecord.ID> = \CKRecord.Reference.recordID
    let _: KeyPath<CKRecord.Reference, CKRecord.ReferenceAction> = \CKRecord.Reference.action
    let _: [CKRecord.ReferenceAction] = [.none, .deleteSelf]

    // CKAsset.
    let _: (URL) -> CKAsset = CKAsset.init(fileURL:)
    let _: KeyPath<CKAsset, URL?> = \CKAsset.fileURL

    // CKRecordZone.
    let _: (String) -> CKRecordZone = CKRecordZone.init(zoneName:)
    let _: (CKRecordZone.ID) -> CKRecordZone = CKRecordZone.init(zoneID:)
    let _: () -> CKRecordZone = CKRecordZone.default
    let _: KeyPath<CKRecordZone, CKRecordZone.ID> = \CKRecordZone.zoneID
    let _: KeyPath<CKRecordZone, CKRecordZone.Capabilities> = \CKRecordZone.capabilities
    let _: KeyPath<CKRecordZone, CKRecord.Reference?> = \CKRecordZone.share
    let _: CKRecordZone.Capabilities = [.fetchChanges, .atomic, .sharing, .zoneWideSharing]
    let _: (String, String) -> CKRecordZone.ID = CKRecordZone.ID.init(zoneName:ownerName:)
    let _: KeyPath<CKRecordZone.ID, String> = \CKRecordZone.ID.zoneName
    let _: KeyPath<CKRecordZone.ID, String> = \CKRecordZone.ID.ownerName
    let _: CKRecordZone.ID = CKRecordZone.ID.default
    let _: String = CKRecordZone.ID.defaultZoneName

    // CKServerChangeToken and the query cursor are opaque and archivable.
    let _: (NSCoder) -> CKServerChangeToken? = CKServerChangeToken.init(coder:)
    let _: (NSCoder) -> CKQueryOperation.Cursor? = CKQueryOperation.Cursor.init(coder:)
}
