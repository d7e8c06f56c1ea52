import Foundation

/// An Apple archive's `CKRecordValueStore` (and `CKEncryptedRecordValueStore`): a record's values under
/// `RecordValues`, as record values StratusKit holds. Values it cannot read (references, locations) are left out.
final class AppleRecordValueStore: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let values: [String: any CKRecordValueProtocol]

    init?(coder: NSCoder) {
        let raw = coder.containsValue(forKey: "RecordValues") ? coder.decodeObject(of: AppleArchive.valueClasses,
                forKey: "RecordValues") as? NSDictionary : nil
        var values: [String: any CKRecordValueProtocol] = [:]
        for (key, value) in raw ?? [:] {
            guard let key = key as? String, let v = Self.recordValue(value) else { continue }
            values[key] = v
        }
        self.values = values
    }

    func encode(with coder: NSCoder) {}

    private static func recordValue(_ v: Any) -> (any CKRecordValueProtocol)? {
        switch v {
        case let a as AppleArchivedAsset: return a.fileURL.map { CKAsset(fileURL: $0) }
        case is AppleUnreadValue: return nil
        case let list as NSArray:
            let items = list.compactMap(recordValue)
            return items.count == list.count ? CKRecord.normalized(items) : nil
        case let value as any CKRecordValueProtocol: return CKRecord.normalized(value)
        default: return nil
        }
    }
}
