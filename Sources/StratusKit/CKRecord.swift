import Foundation
import StratusJSON

/// Mirrors `CKRecord`: a typed set of fields with CloudKit's system fields (change tag, dates, creator, parent,
/// share). Setting a field marks it changed, so `.changedKeys` and `.ifServerRecordUnchanged` saves send only what
/// changed. Numbers are kept as `NSNumber`, so reads cast as CloudKit's do (`as? Int`, `as? Int64`, `as? Bool`).
/// Like CloudKit's, a record is not meant to be mutated from two threads at once.
open class CKRecord: NSObject, NSSecureCoding, NSCopying, CKRecordKeyValueSetting, @unchecked Sendable {
    /// Mirrors `CKRecord.RecordType`.
    public typealias RecordType = String
    /// Mirrors `CKRecord.FieldKey`.
    public typealias FieldKey = String

    /// Mirrors `CKRecord.SystemFieldKey`: the names of system fields in a query's predicate and sort.
    public enum SystemFieldKey {
        /// Mirrors `CKRecord.SystemFieldKey.recordID`.
        public static let recordID: FieldKey = "recordID"
        /// Mirrors `CKRecord.SystemFieldKey.creationDate`.
        public static let creationDate: FieldKey = "creationDate"
        /// Mirrors `CKRecord.SystemFieldKey.modificationDate`.
        public static let modificationDate: FieldKey = "modificationDate"
        /// Mirrors `CKRecord.SystemFieldKey.creatorUserRecordID`.
        public static let creatorUserRecordID: FieldKey = "creatorUserRecordID"
        /// Mirrors `CKRecord.SystemFieldKey.lastModifiedUserRecordID`.
        public static let lastModifiedUserRecordID: FieldKey = "lastModifiedUserRecordID"
        /// Mirrors `CKRecord.SystemFieldKey.parent`.
        public static let parent: FieldKey = "parent"
        /// Mirrors `CKRecord.SystemFieldKey.share`.
        public static let share: FieldKey = "share"
    }

    /// Mirrors `CKRecord.SystemType`.
    public enum SystemType {
        /// The record type of shares, `cloudkit.share`.
        public static let share: RecordType = "cloudkit.share"
        /// Mirrors `CKRecord.SystemType.userRecord`: each user's `Users` record, fetched by the ID
        /// `fetchUserRecordID` gives.
        public static let userRecord: RecordType = "Users"
    }

    /// Mirrors `CKRecord.recordType`.
    public let recordType: RecordType
    /// Mirrors `CKRecord.recordID`.
    public let recordID: CKRecord.ID
    /// Mirrors `recordChangeTag`: the server's version of this record, nil until it is saved.
    public internal(set) var recordChangeTag: String?
    /// Mirrors `CKRecord.creationDate`.
    public internal(set) var creationDate: Date?
    /// Mirrors `CKRecord.modificationDate`.
    public internal(set) var modificationDate: Date?
    /// Mirrors `CKRecord.creatorUserRecordID`.
    public internal(set) var creatorUserRecordID: CKRecord.ID?
    /// Mirrors `CKRecord.lastModifiedUserRecordID`.
    public internal(set) var lastModifiedUserRecordID: CKRecord.ID?
    /// Mirrors `CKRecord.parent`: the record this one is shared with (see `setParent(_:)`).
    public var parent: CKRecord.Reference? {
        didSet { changedSystemKeys.insert("parent") }
    }
    /// Mirrors `CKRecord.share`: the share this record is the root of, if any.
    public internal(set) var share: CKRecord.Reference?

    var values: [FieldKey: any CKRecordValueProtocol] = [:]
    /// Changed field keys in the order they were first changed.
    var changed: [FieldKey] = []
    /// What each changed key held before its first change (absent: it had no value), for `ancestorRecord`.
    var originals: [FieldKey: any CKRecordValueProtocol] = [:]
    var changedSystemKeys: Set<String> = []
    /// Keys written through `encryptedValues`.
    var encryptedKeys: Set<FieldKey> = []
    /// Whether this record came back holding only some of its fields (desiredKeys).
    var isPartial = false

    /// Mirrors `CKRecord(recordType:recordID:)`.
    public init(recordType: RecordType, recordID: CKRecord.ID) {
        self.recordType = recordType
        self.recordID = recordID
    }

    /// Mirrors `CKRecord(recordType:)`: a record with a fresh UUID name in the default zone.
    public convenience init(recordType: RecordType) {
        self.init(recordType: recordType, recordID: CKRecord.ID())
    }

    /// Mirrors `CKRecord(recordType:zoneID:)`.
    public convenience init(recordType: RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: CKRecord.ID(zoneID: zoneID))
    }

    // MARK: Fields

    /// Mirrors `CKRecord`'s subscript: reads and writes a field; writing marks the key changed. An encrypted
    /// field reads nil here, as in CloudKit: it is read through `encryptedValues`.
    public subscript(key: FieldKey) -> (any CKRecordValueProtocol)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    /// Mirrors `CKRecord.object`: nil for an encrypted field (see `encryptedValues`).
    public func object(forKey key: FieldKey) -> (any CKRecordValueProtocol)? {
        // Most records hold no encrypted field: skip hashing the key a second time for them.
        !encryptedKeys.isEmpty && encryptedKeys.contains(key) ? nil : values[key]
    }

    /// Mirrors `CKRecord.setObject`.
    public func setObject(_ object: (any CKRecordValueProtocol)?, forKey key: FieldKey) {
        setValue(object, forKey: key, encrypted: false)
    }

    /// Key-value coding's `setValue(_:forKey:)`, which apps call on a `CKRecord` as on any `NSObject`: a record
    /// value is set as through the subscript, nil removes the field. Any other value is a programming error, as
    /// CloudKit's raises an exception for it.
    public func setValue(_ value: Any?, forKey key: String) {
        guard let value else { return setObject(nil, forKey: key) }
        guard let recordValue = value as? any CKRecordValueProtocol else {
            preconditionFailure("\(type(of: value)) is not a CKRecordValue and cannot be stored in the field \(key)")
        }
        setObject(recordValue, forKey: key)
    }

    /// Key-value coding's `value(forKey:)`: the field's value, as the subscript reads it.
    public func value(forKey key: String) -> Any? { object(forKey: key) }

    /// Key-value coding's `dictionaryWithValues(forKeys:)`, which Foundation on Linux lacks: each key's value as
    /// `value(forKey:)` reads it, `NSNull` where the record holds none.
    #if canImport(Darwin)
    public override func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] { fieldDictionary(keys) }
    #else
    public func dictionaryWithValues(forKeys keys: [String]) -> [String: Any] { fieldDictionary(keys) }
    #endif

    private func fieldDictionary(_ keys: [String]) -> [String: Any] {
        var out: [String: Any] = [:]
        for key in keys { out[key] = object(forKey: key) ?? NSNull() }
        return out
    }

    /// Mirrors `CKRecord.allTokens()`: the lowercased words of every plain string field, as CloudKit's
    /// tokenized full-text search sees them.
    public func allTokens() -> [String] {
        var tokens: [String] = []
        var seen: Set<String> = []
        for key in allKeys() {
            let strings: [String] = switch values[key] {
            case let s as String: [s]
            case let list as [any CKRecordValueProtocol]: list.compactMap { $0 as? String }
            default: []
            }
            for string in strings {
                for word in string.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) where seen.insert(String(word)).inserted {
                    tokens.append(String(word))
                }
            }
        }
        return tokens
    }

    /// Drops every plain field not in `keys`, as a fetch with desired keys would have left it.
    func keepOnly(_ keys: Set<FieldKey>) {
        for key in values.keys where !keys.contains(key) { values.removeValue(forKey: key) }
        isPartial = true
    }

    /// Writes a plain or an encrypted value, marking the key changed.
    func setValue(_ object: (any CKRecordValueProtocol)?, forKey key: FieldKey, encrypted: Bool) {
        if !changed.contains(key) {
            changed.append(key)
            if let old = values[key] { originals[key] = old }
        }
        if encrypted { encryptedKeys.insert(key) } else if !encryptedKeys.isEmpty { encryptedKeys.remove(key) }
        if let object { values[key] = CKRecord.normalized(object) } else { values.removeValue(forKey: key) }
    }

    /// Mirrors `CKRecord.allKeys()`: the keys that hold a plain value (encrypted ones are `encryptedValues.allKeys()`).
    public func allKeys() -> [FieldKey] { encryptedKeys.isEmpty ? values.keys.sorted() : values.keys.filter { !encryptedKeys.contains($0) }.sorted() }

    /// Mirrors `CKRecord.changedKeys()`: plain keys set since the record was created, fetched or saved (encrypted
    /// ones are `encryptedValues.changedKeys()`).
    public func changedKeys() -> [FieldKey] { encryptedKeys.isEmpty ? changed : changed.filter { !encryptedKeys.contains($0) } }

    /// Every key holding a value, plain or encrypted: what a save of all keys and an archive carry.
    var storedKeys: [FieldKey] { values.keys.sorted() }

    /// Every key changed, plain or encrypted: what a save sends.
    var changedStoredKeys: [FieldKey] { changed }

    /// Mirrors `CKRecord.encryptedValues`: the schema's ENCRYPTED fields are read and written here. They travel on
    /// the same connection as other fields (TLS in front of Stratus protects them in transit).
    public var encryptedValues: any CKRecordKeyValueSetting & Sendable { EncryptedValues(record: self) }

    /// Mirrors `CKRecord.setParent(_:)` with a record ID.
    public func setParent(_ parentID: CKRecord.ID?) {
        parent = parentID.map { CKRecord.Reference(recordID: $0, action: .none) }
    }

    /// Mirrors `CKRecord.setParent(_:)` with a record.
    public func setParent(_ parentRecord: CKRecord?) {
        setParent(parentRecord?.recordID)
    }

    /// Integers, floating-point numbers and booleans become `NSNumber`s (and arrays of them), so reads cast the
    /// way they do with CloudKit whatever type was written.
    static func normalized(_ v: any CKRecordValueProtocol) -> any CKRecordValueProtocol {
        switch v {
        case let b as Bool: return NSNumber(value: b)
        case let i as Int: return NSNumber(value: Int64(i))
        case let i as Int64: return NSNumber(value: i)
        case let i as Int32: return NSNumber(value: Int64(i))
        case let i as Int16: return NSNumber(value: Int64(i))
        case let i as Int8: return NSNumber(value: Int64(i))
        case let i as UInt: return NSNumber(value: Int64(truncatingIfNeeded: i))
        case let i as UInt64: return NSNumber(value: Int64(truncatingIfNeeded: i))
        case let i as UInt32: return NSNumber(value: Int64(i))
        case let i as UInt16: return NSNumber(value: Int64(i))
        case let i as UInt8: return NSNumber(value: Int64(i))
        case let d as Double: return NSNumber(value: d)
        case let f as Float: return NSNumber(value: Double(f))
        case let s as NSString: return s as String
        // NSDate and NSData (which CloudKit takes as it takes Date and Data) read back as the Swift values.
        case let d as Date: return d
        case let d as Data: return d
        case let list as [any CKRecordValueProtocol]: return list.map(normalized)
        case let list as NSArray: return list.compactMap { $0 as? any CKRecordValueProtocol }.map(normalized)
        default: return v
        }
    }

    // MARK: Coding

    /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
    public class var supportsSecureCoding: Bool { true }

    /// Mirrors `CKRecord.encodeSystemFields(with:)`: only what identifies this version of the record (type, ID,
    /// change tag, dates, creators, parent, share), so a local cache can later rebuild the record and save changes
    /// against the version it has.
    public func encodeSystemFields(with coder: NSCoder) {
        coder.encode(recordType as NSString, forKey: "recordType")
        coder.encode(recordID, forKey: "recordID")
        if let t = recordChangeTag { coder.encode(t as NSString, forKey: "recordChangeTag") }
        if let d = creationDate { coder.encode(d.timeIntervalSince1970, forKey: "creationDate") }
        if let d = modificationDate { coder.encode(d.timeIntervalSince1970, forKey: "modificationDate") }
        if let u = creatorUserRecordID { coder.encode(u, forKey: "creatorUserRecordID") }
        if let u = lastModifiedUserRecordID { coder.encode(u, forKey: "lastModifiedUserRecordID") }
        if let p = parent { coder.encode(p, forKey: "parent") }
        if let s = share { coder.encode(s, forKey: "share") }
    }

    /// The whole record: system fields and every field value (as their wire JSON).
    public func encode(with coder: NSCoder) {
        encodeSystemFields(with: coder)
        let fields = RecordCoder.fieldsJSON(self, keys: storedKeys)
        coder.encode(JSON(fields).encoded as NSData, forKey: "fields")
        // Archives made before held TIMESTAMPs in milliseconds; this says these hold seconds since 2001.
        coder.encode(RecordCoder.datesHeader.1 as NSString, forKey: "fieldDates")
    }

    /// Mirrors `CKRecord(coder:)`, reading what `encodeSystemFields(with:)` or `encode(with:)` wrote — StratusKit's,
    /// or Apple's CloudKit's (`AppleArchivedRecord`), whether its keys are the coder's own or its root object's.
    public required init?(coder: NSCoder) {
        AppleArchive.register()
        if let apple = AppleArchivedRecord(coder: coder) ?? Self.rootRecord(coder).map(AppleArchivedRecord.init(record:)) {
            recordType = apple.recordType
            recordID = apple.recordID
            super.init()
            apple.apply(to: self)
            markSaved()
            return
        }
        guard let type = coder.optionalObject(of: NSString.self, forKey: "recordType"),
              let id = coder.optionalObject(of: CKRecord.ID.self, forKey: "recordID") else { return nil }
        recordType = type as String
        recordID = id
        super.init()
        recordChangeTag = coder.optionalObject(of: NSString.self, forKey: "recordChangeTag") as String?
        if coder.containsValue(forKey: "creationDate") { creationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "creationDate")) }
        if coder.containsValue(forKey: "modificationDate") { modificationDate = Date(timeIntervalSince1970: coder.decodeDouble(forKey: "modificationDate")) }
        creatorUserRecordID = coder.optionalObject(of: CKRecord.ID.self, forKey: "creatorUserRecordID")
        lastModifiedUserRecordID = coder.optionalObject(of: CKRecord.ID.self, forKey: "lastModifiedUserRecordID")
        parent = coder.optionalObject(of: CKRecord.Reference.self, forKey: "parent")
        share = coder.optionalObject(of: CKRecord.Reference.self, forKey: "share")
        if let data = coder.optionalObject(of: NSData.self, forKey: "fields"),
           let fields = JSON(parsing: data as Data)?.object {
            let dates = coder.optionalObject(of: NSString.self,
                                             forKey: "fieldDates") as String? == RecordCoder.datesHeader.1
            RecordCoder.readFields(fields, into: self, zoneID: recordID.zoneID, assets: nil,
                                   dates: dates ? .referenceSeconds : .milliseconds)
        }
        markSaved()
    }

    /// The record an unarchiver's root object is (`archivedData(withRootObject:)`), for `CKRecord(coder:)` given the
    /// unarchiver itself rather than its root.
    private static func rootRecord(_ coder: NSCoder) -> CKRecord? {
        guard !coder.containsValue(forKey: "recordType"), coder.containsValue(forKey: NSKeyedArchiveRootObjectKey) else { return nil }
        return coder.decodeObject(of: CKRecord.self, forKey: NSKeyedArchiveRootObjectKey)
    }

    /// Mirrors `CKRecord.copy()` (NSCopying): the same record, its fields and system fields, with no unsaved changes.
    open func copy(with zone: NSZone? = nil) -> Any { copyRecord() }

    /// The values as they were before this record's unsaved changes.
    func ancestorValues() -> [FieldKey: any CKRecordValueProtocol] {
        var v = values
        for key in changed { v[key] = originals[key] }
        return v
    }

    /// Forgets which keys changed: after a save, or when read from the server.
    func markSaved() {
        changed = []
        originals = [:]
        changedSystemKeys = []
    }

    /// A copy with the same fields and system fields, nothing marked changed.
    func copyRecord() -> CKRecord {
        let c = CKRecord(recordType: recordType, recordID: recordID)
        c.copySystemFields(from: self)
        c.values = values
        c.encryptedKeys = encryptedKeys
        return c
    }

    func copySystemFields(from o: CKRecord) {
        recordChangeTag = o.recordChangeTag
        creationDate = o.creationDate
        modificationDate = o.modificationDate
        creatorUserRecordID = o.creatorUserRecordID
        lastModifiedUserRecordID = o.lastModifiedUserRecordID
        parent = o.parent
        share = o.share
        changedSystemKeys = []
    }

    /// A short form for logs.
    open override var description: String {
        "<CKRecord: \(recordType) \(recordID.recordName) tag=\(recordChangeTag ?? "-") keys=\(allKeys())>"
    }
}

/// Mirrors `CKRecordTypeUserRecord`.
public let CKRecordTypeUserRecord: CKRecord.RecordType = CKRecord.SystemType.userRecord
/// Mirrors `CKRecordTypeShare`.
public let CKRecordTypeShare: CKRecord.RecordType = CKRecord.SystemType.share
