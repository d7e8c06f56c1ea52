import Foundation

/// Mirrors `CKRecordZone`: a zone of a private database (the default zone, or a custom one with atomic batches and
/// change tracking, as CloudKit's custom zones have).
public final class CKRecordZone: NSObject, @unchecked Sendable {
    /// Mirrors `CKRecordZone.Capabilities`.
    public struct Capabilities: OptionSet, Sendable {
        /// The option set's raw bits.
        public let rawValue: UInt
        /// An option set from its raw bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Mirrors `CKRecordZone.Capabilities.fetchChanges`.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// Mirrors `CKRecordZone.Capabilities.atomic`.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// Mirrors `CKRecordZone.Capabilities.sharing`.
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// Mirrors `CKRecordZone.Capabilities.zoneWideSharing`.
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    /// Mirrors `CKRecordZone.zoneID`.
    public let zoneID: ID
    /// Mirrors `CKRecordZone.capabilities`: custom zones have all of them; the default zone none.
    public internal(set) var capabilities: Capabilities
    /// Mirrors `CKRecordZone.share`: the zone-wide share, if any.
    public internal(set) var share: CKRecord.Reference?

    /// Mirrors `CKRecordZone(zoneName:)`.
    public convenience init(zoneName: String) {
        self.init(zoneID: ID(zoneName: zoneName))
    }

    /// Mirrors `CKRecordZone(zoneID:)`.
    public init(zoneID: ID) {
        self.zoneID = zoneID
        self.capabilities = zoneID.zoneName == ID.defaultZoneName ? [] : [.fetchChanges, .atomic, .sharing,
                .zoneWideSharing]
    }

    /// Mirrors `CKRecordZone.default()`.
    public static func `default`() -> CKRecordZone { CKRecordZone(zoneID: .default) }

    /// Equal when every identifying part is equal, as with CloudKit.
    public override func isEqual(_ object: Any?) -> Bool { (object as? CKRecordZone)?.zoneID == zoneID }
    /// Consistent with `isEqual(_:)`.
    public override var hash: Int { zoneID.hash }
    /// A short form for logs.
    public override var description: String { "<CKRecordZone: \(zoneID.zoneName)>" }
}
