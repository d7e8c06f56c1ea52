import Foundation

/// What `CKRecord.encryptedValues` returns: the record's fields, read and written with the key marked encrypted.
final class EncryptedValues: CKRecordKeyValueSetting {
    let record: CKRecord
    init(record: CKRecord) { self.record = record }

    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? { record.object(forKey: key) }

    func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: CKRecord.FieldKey) {
        record.encryptedKeys.insert(key)
        record.setObject(object, forKey: key)
    }

    func allKeys() -> [CKRecord.FieldKey] { record.allKeys().filter(record.encryptedKeys.contains) }
    func changedKeys() -> [CKRecord.FieldKey] { record.changedKeys().filter(record.encryptedKeys.contains) }
}
