import Foundation

/// What `CKRecord.encryptedValues` returns: the record's fields, read and written with the key marked encrypted.
final class EncryptedValues: CKRecordKeyValueSetting, @unchecked Sendable {
    let record: CKRecord
    init(record: CKRecord) { self.record = record }

    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// The encrypted value of `key`; nil for a plain field, as CloudKit answers.
    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        record.encryptedKeys.contains(key) ? record.values[key] : nil
    }

    func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: CKRecord.FieldKey) {
        record.setValue(object, forKey: key, encrypted: true)
    }

    func allKeys() -> [CKRecord.FieldKey] { record.storedKeys.filter(record.encryptedKeys.contains) }
    func changedKeys() -> [CKRecord.FieldKey] { record.changedStoredKeys.filter(record.encryptedKeys.contains) }
}
