import Foundation
import StratusJSON

/// Mirrors `CKRecordZoneSubscription`: notifies of any change in one custom zone.
public final class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    /// Mirrors `CKRecordZoneSubscription.zoneID`.
    public let zoneID: CKRecordZone.ID
    /// Mirrors `CKRecordZoneSubscription.recordType` (kept; the server notifies of every type).
    public var recordType: CKRecord.RecordType?

    /// Mirrors `CKRecordZoneSubscription(zoneID:subscriptionID:)`.
    public init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID = UUID().uuidString) {
        self.zoneID = zoneID
        super.init(subscriptionID: subscriptionID, type: .recordZone)
    }

    /// Adds the zone and record type to the archive.
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(zoneID, forKey: "zoneID")
        if let recordType { coder.encode(recordType as NSString, forKey: "recordType") }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) {
        guard let zone = coder.optionalObject(of: CKRecordZone.ID.self, forKey: "zoneID") else { return nil }
        zoneID = zone
        recordType = coder.optionalObject(of: NSString.self, forKey: "recordType") as String?
        super.init(coder: coder)
    }

    override func wire() throws -> WireObject {
        var o = try super.wire()
        o["subscriptionType"] = "zone"
        o["zoneID"] = JSON(RecordCoder.zoneJSON(zoneID))
        return o
    }
}
