import Foundation

/// Mirrors `CKFetchRecordZonesOperation`: zones by ID, or all of them (`fetchAllRecordZonesOperation()`).
open class CKFetchRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Mirrors `CKFetchRecordZonesOperation.recordZoneIDs`.
    public var recordZoneIDs: [CKRecordZone.ID]?
    /// Mirrors `CKFetchRecordZonesOperation.perRecordZoneResultBlock`.
    public var perRecordZoneResultBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    /// Mirrors `CKFetchRecordZonesOperation.fetchRecordZonesResultBlock`.
    public var fetchRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// Mirrors the deprecated `fetchRecordZonesCompletionBlock`.
    public var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?

    /// Mirrors `CKFetchRecordZonesOperation()`: set its properties, then add it to a database.
    public override init() { super.init() }

    /// Mirrors `CKFetchRecordZonesOperation(recordZoneIDs:)`.
    public convenience init(recordZoneIDs: [CKRecordZone.ID]) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
    }

    /// Mirrors `CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()`.
    public static func fetchAllRecordZonesOperation() -> CKFetchRecordZonesOperation { CKFetchRecordZonesOperation() }

    override func execute() async {
        await finishing(result: { fetchRecordZonesResultBlock?($0) }, completion: { fetchRecordZonesCompletionBlock?($0,
                $1) }) {
            let db = targetDatabase
            var results: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
            var order: [CKRecordZone.ID] = []
            if let ids = recordZoneIDs {
                results = try await db.recordZones(for: ids)
                order = ids
            } else {
                for z in try await db.allRecordZones() { results[z.zoneID] = .success(z); order.append(z.zoneID) }
            }
            let zones = ItemResults(order, results, missing: { CKError.make(.zoneNotFound,
                    "zone \($0.zoneName) not found") }) { perRecordZoneResultBlock?($0, $1) }
            return (zones.byID, zones.failure("zones"))
        }
    }
}
