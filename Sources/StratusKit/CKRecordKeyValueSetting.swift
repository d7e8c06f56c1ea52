import Foundation

/// Mirrors `CKRecordKeyValueSetting`: what `CKRecord` and its `encryptedValues` share — reading and writing fields
/// by key, and which keys there are and which changed since the record was fetched or saved.
public protocol CKRecordKeyValueSetting: AnyObject {
    subscript(key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)? { get set }
    func object(forKey key: CKRecord.FieldKey) -> (any CKRecordValueProtocol)?
    func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: CKRecord.FieldKey)
    func allKeys() -> [CKRecord.FieldKey]
    func changedKeys() -> [CKRecord.FieldKey]
}

extension CKRecordKeyValueSetting {
    /// Mirrors CloudKit's typed read, `let title: String? = record["title"]`.
    public subscript<T: CKRecordValueProtocol>(key: CKRecord.FieldKey) -> T? {
        object(forKey: key) as? T
    }
}
