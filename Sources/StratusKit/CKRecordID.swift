import Foundation

extension CKRecord {
    /// Mirrors `CKRecord.ID`.
    public typealias ID = CKRecordID
}

/// Mirrors `CKRecord.ID` (`CKRecordID`, its Objective-C name, which keyed archives need on Linux): a record's name
/// and the zone it lives in (the default zone unless given).
public final class CKRecordID: NSObject, NSSecureCoding, @unchecked Sendable {
        /// Mirrors `CKRecord.ID.recordName`.
        public let recordName: String
        /// Mirrors `CKRecord.ID.zoneID`.
        public let zoneID: CKRecordZone.ID

        /// Mirrors `CKRecord.ID(recordName:zoneID:)`.
        public init(recordName: String, zoneID: CKRecordZone.ID = .default) {
            self.recordName = recordName
            self.zoneID = zoneID
        }

        /// Mirrors `CKRecord.ID(recordName:)`: a record in the default zone.
        public convenience init(recordName: String) {
            self.init(recordName: recordName, zoneID: .default)
        }

        /// Mirrors `CKRecord.ID(zoneID:)`: a fresh UUID name, as CloudKit gives.
        public convenience init(zoneID: CKRecordZone.ID) {
            self.init(recordName: UUID().uuidString, zoneID: zoneID)
        }

        /// Mirrors `CKRecord.ID()`.
        public convenience override init() {
            self.init(recordName: UUID().uuidString)
        }

        /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
        public static var supportsSecureCoding: Bool { true }

        /// What a keyed archive keeps of it (NSCoding).
        public func encode(with coder: NSCoder) {
            coder.encode(recordName as NSString, forKey: "recordName")
            coder.encode(zoneID, forKey: "zoneID")
        }

        /// Reads what `encode(with:)` wrote, or what Apple's CloudKit did (`RecordName`, `ZoneID`); nil for a
        /// damaged archive.
        public init?(coder: NSCoder) {
            AppleArchive.register()
            guard let n = coder.optionalObject(of: NSString.self,
                                               forKey: "recordName") ?? coder.optionalObject(of: NSString.self,
                    forKey: "RecordName"),
                  let z = coder.optionalObject(of: CKRecordZone.ID.self,
                                               forKey: "zoneID") ?? coder.optionalObject(of: CKRecordZone.ID.self,
                          forKey: "ZoneID")
            else { return nil }
            recordName = n as String
            zoneID = z
        }

        /// Equal when every identifying part is equal, as with CloudKit.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? CKRecordID else { return false }
            return recordName == other.recordName && zoneID == other.zoneID
        }

        /// Consistent with `isEqual(_:)`.
        public override var hash: Int { identityHash(recordName, zoneID.hash) }

        /// A short form for logs.
        public override var description: String { "<CKRecordID: \(recordName); zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>" }
}
