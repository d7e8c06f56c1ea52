import Foundation

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

    override func wire() throws -> [String: Any] {
        var o = try super.wire()
        o["subscriptionType"] = "zone"
        o["zoneID"] = RecordCoder.zoneJSON(zoneID)
        return o
    }
}
