import Foundation
import StratusJSON

/// Mirrors `CKQueryNotification`: a record matching a query subscription was created, updated or deleted.
public final class CKQueryNotification: CKNotification, @unchecked Sendable {
    /// Mirrors `CKQueryNotification.Reason`.
    public enum Reason: Int, Sendable {
        case recordCreated = 1, recordUpdated = 2, recordDeleted = 3
    }

    /// Mirrors `CKQueryNotification.queryNotificationReason`.
    public let queryNotificationReason: Reason
    /// Mirrors `recordFields`: the subscription's `desiredKeys` fields of the record.
    public let recordFields: [CKRecord.FieldKey: Any]?
    /// Mirrors `CKQueryNotification.recordID`.
    public let recordID: CKRecord.ID?
    /// Mirrors `CKQueryNotification.databaseScope`.
    public let databaseScope: CKDatabase.Scope

    init(_ d: WireObject, ck: WireObject, qry: WireObject) {
        queryNotificationReason = Reason(rawValue: qry["fo"]?.int ?? 1) ?? .recordCreated
        recordFields = qry["af"]?.object?.mapValues(\.foundation)
        databaseScope = CKNotification.scope(qry["dbs"])
        recordID = (qry["rid"]?.string).map { CKRecord.ID(recordName: $0,
                                                          zoneID: CKNotification.zone(qry) ?? .default) }
        super.init(type: .query, d, ck: ck, subscriptionID: qry["sid"]?.string)
    }
}
