import Foundation

/// Mirrors `CKRecordZone`: a zone of a private database (the default zone, or a custom one with atomic batches and
/// change tracking, as CloudKit's custom zones have).
public final class CKRecordZone: NSObject, @unchecked Sendable {
    /// Mirrors `CKRecordZone.Capabilities`.
    public struct Capabilities: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        public static let atomic = Capabilities(rawValue: 1 << 1)
        public static let sharing = Capabilities(rawValue: 1 << 2)
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

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
        self.capabilities = zoneID.zoneName == ID.defaultZoneName ? [] : [.fetchChanges, .atomic, .sharing, .zoneWideSharing]
    }

    /// Mirrors `CKRecordZone.default()`.
    public static func `default`() -> CKRecordZone { CKRecordZone(zoneID: .default) }

    public override func isEqual(_ object: Any?) -> Bool { (object as? CKRecordZone)?.zoneID == zoneID }
    public override var hash: Int { zoneID.hash }
    public override var description: String { "<CKRecordZone: \(zoneID.zoneName)>" }
}
