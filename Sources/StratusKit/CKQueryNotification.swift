import Foundation

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

    init(_ d: [String: Any], ck: [String: Any], qry: [String: Any]) {
        queryNotificationReason = Reason(rawValue: (qry["fo"] as? NSNumber)?.intValue ?? 1) ?? .recordCreated
        recordFields = qry["af"] as? [String: Any]
        databaseScope = CKNotification.scope(qry["dbs"])
        recordID = (qry["rid"] as? String).map { CKRecord.ID(recordName: $0, zoneID: CKNotification.zone(qry) ?? .default) }
        super.init(type: .query, d, ck: ck, subscriptionID: qry["sid"] as? String)
    }
}

/// Mirrors `CKRecordZoneNotification`: something changed in a zone a zone subscription watches.
public final class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    /// Mirrors `CKRecordZoneNotification.recordZoneID`.
    public let recordZoneID: CKRecordZone.ID?
    /// Mirrors `CKRecordZoneNotification.databaseScope`.
    public let databaseScope: CKDatabase.Scope

    init(_ d: [String: Any], ck: [String: Any], fet: [String: Any]) {
        recordZoneID = CKNotification.zone(fet)
        databaseScope = CKNotification.scope(fet["dbs"])
        super.init(type: .recordZone, d, ck: ck, subscriptionID: fet["sid"] as? String)
    }
}

/// Mirrors `CKDatabaseNotification`: something changed in a database a database subscription watches.
public final class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    /// Mirrors `CKDatabaseNotification.databaseScope`.
    public let databaseScope: CKDatabase.Scope

    init(_ d: [String: Any], ck: [String: Any], met: [String: Any]) {
        databaseScope = CKNotification.scope(met["dbs"])
        super.init(type: .database, d, ck: ck, subscriptionID: met["sid"] as? String)
    }
}
