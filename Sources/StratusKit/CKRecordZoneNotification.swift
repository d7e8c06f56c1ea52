import Foundation
import StratusJSON

/// Mirrors `CKRecordZoneNotification`: something changed in a zone a zone subscription watches.
public final class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    /// Mirrors `CKRecordZoneNotification.recordZoneID`.
    public let recordZoneID: CKRecordZone.ID?
    /// Mirrors `CKRecordZoneNotification.databaseScope`.
    public let databaseScope: CKDatabase.Scope

    init(_ d: WireObject, ck: WireObject, fet: WireObject) {
        recordZoneID = CKNotification.zone(fet)
        databaseScope = CKNotification.scope(fet["dbs"])
        super.init(type: .recordZone, d, ck: ck, subscriptionID: fet["sid"]?.string)
    }
}
