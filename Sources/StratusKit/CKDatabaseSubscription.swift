import Foundation

/// Mirrors `CKDatabaseSubscription`: notifies of any change in a private or shared database.
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    /// Mirrors `CKDatabaseSubscription.recordType` (kept; the server notifies of every type).
    public var recordType: CKRecord.RecordType?

    /// Mirrors `CKDatabaseSubscription(subscriptionID:)`.
    public init(subscriptionID: CKSubscription.ID = UUID().uuidString) {
        super.init(subscriptionID: subscriptionID, type: .database)
    }

    override func wire() throws -> [String: Any] {
        var o = try super.wire()
        o["subscriptionType"] = "database"
        return o
    }
}
