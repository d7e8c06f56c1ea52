import Foundation

/// Mirrors CloudKit's `CKCurrentUserDefaultName`: the owner name that stands for the signed-in user.
public let CKCurrentUserDefaultName = "__defaultOwner__"

extension CKRecordZone {
    /// Mirrors `CKRecordZone.ID`.
    public typealias ID = CKRecordZoneID
}

/// Mirrors `CKRecordZone.ID` (`CKRecordZoneID`, its Objective-C name, which keyed archives need on Linux): a zone's
/// name and its owner. Zones of the caller's own private database carry `CKCurrentUserDefaultName` as CloudKit's do;
/// zones in the shared database carry their owner's user record name.
public final class CKRecordZoneID: NSObject, NSSecureCoding, @unchecked Sendable {
        /// Mirrors `CKRecordZone.ID.defaultZoneName`.
        public static let defaultZoneName = "_defaultZone"
        /// Mirrors `CKRecordZone.ID.default`.
        public static let `default` = CKRecordZoneID(zoneName: defaultZoneName, ownerName: CKCurrentUserDefaultName)

        /// Mirrors `CKRecordZone.ID.zoneName`.
        public let zoneName: String
        /// Mirrors `CKRecordZone.ID.ownerName`.
        public let ownerName: String

        /// Mirrors `CKRecordZone.ID(zoneName:ownerName:)`.
        public init(zoneName: String = CKRecordZoneID.defaultZoneName, ownerName: String = CKCurrentUserDefaultName) {
            self.zoneName = zoneName
            self.ownerName = ownerName
        }

        /// Keyed archives of it are secure (NSSecureCoding), as CloudKit's.
        public static var supportsSecureCoding: Bool { true }

        /// What a keyed archive keeps of it (NSCoding).
        public func encode(with coder: NSCoder) {
            coder.encode(zoneName as NSString, forKey: "zoneName")
            coder.encode(ownerName as NSString, forKey: "ownerName")
        }

        /// Reads what `encode(with:)` wrote, or what Apple's CloudKit did (`ZoneName`, `ownerName`); nil for a
        /// damaged archive.
        public init?(coder: NSCoder) {
            guard let z = coder.optionalObject(of: NSString.self,
                                               forKey: "zoneName") ?? coder.optionalObject(of: NSString.self,
                    forKey: "ZoneName"),
                  let o = coder.optionalObject(of: NSString.self, forKey: "ownerName") else { return nil }
            zoneName = z as String
            ownerName = o as String
        }

        /// Equal when every identifying part is equal, as with CloudKit.
        public override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? CKRecordZoneID else { return false }
            return zoneName == other.zoneName && ownerName == other.ownerName
        }

        /// Consistent with `isEqual(_:)`.
        public override var hash: Int { identityHash(zoneName, ownerName) }

        /// A short form for logs.
        public override var description: String { "<CKRecordZoneID: \(zoneName):\(ownerName)>" }
}

/// The hash of an ID's two identifying parts, for `hash` overrides consistent with `isEqual(_:)`.
func identityHash<A: Hashable, B: Hashable>(_ a: A, _ b: B) -> Int {
    var h = Hasher()
    h.combine(a)
    h.combine(b)
    return h.finalize()
}
