import Foundation

extension CKRecord {
    /// Mirrors `CKRecord.Reference`.
    public typealias Reference = CKReference
}

/// Mirrors `CKRecord.Reference` (`CKReference`, its Objective-C name, which keyed archives need on Linux): a link to
/// another record, optionally deleting the referring record with it.
public final class CKReference: NSObject, NSSecureCoding, CKRecordValueProtocol, @unchecked Sendable {
        /// Mirrors `CKRecord.ReferenceAction`.
        public typealias Action = CKRecord.ReferenceAction

        /// Mirrors `CKRecord.Reference.recordID`.
        public let recordID: CKRecord.ID
        /// Mirrors `CKRecord.Reference.action`.
        public let action: Action

        /// Mirrors `CKRecord.Reference(recordID:action:)`.
        public init(recordID: CKRecord.ID, action: Action) {
            self.recordID = recordID
            self.action = action
        }

        /// Mirrors `CKRecord.Reference(record:action:)`.
        public convenience init(record: CKRecord, action: Action) {
            self.init(recordID: record.recordID, action: action)
        }

        /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
        public static var supportsSecureCoding: Bool { true }

        /// What a keyed archive keeps of it (NSCoding).
        public func encode(with coder: NSCoder) {
            coder.encode(recordID, forKey: "recordID")
            coder.encode(Int64(action.rawValue), forKey: "action")
        }

        /// Reads what `encode(with:)` wrote; nil for a damaged archive.
        public init?(coder: NSCoder) {
            guard let id = coder.optionalObject(of: CKRecord.ID.self, forKey: "recordID") else { return nil }
            recordID = id
            action = Action(rawValue: UInt(coder.decodeInt64(forKey: "action"))) ?? .none
        }

        /// Equal when every identifying part is equal, as with CloudKit.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? CKReference else { return false }
            return recordID == other.recordID && action == other.action
        }

        /// Consistent with `isEqual(_:)`.
        public override var hash: Int { recordID.hash ^ Int(action.rawValue) }
}

extension CKRecord {
    /// Mirrors `CKRecord.ReferenceAction`: `.none` keeps the referring record when the target goes; `.deleteSelf`
    /// deletes it too (DELETE_SELF on the wire).
    public enum ReferenceAction: UInt, Sendable {
        case none = 0
        case deleteSelf = 1
    }
}
