import Foundation
import StratusJSON

/// Mirrors `CKDatabaseSubscription`: notifies of any change in a private or shared database.
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    /// Mirrors `CKDatabaseSubscription.recordType` (kept; the server notifies of every type).
    public var recordType: CKRecord.RecordType?

    /// Mirrors `CKDatabaseSubscription(subscriptionID:)`.
    public init(subscriptionID: CKSubscription.ID = UUID().uuidString) {
        super.init(subscriptionID: subscriptionID, type: .database)
    }

    /// Adds the record type to the archive.
    public override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        if let recordType { coder.encode(recordType as NSString, forKey: "recordType") }
    }

    /// Reads what `encode(with:)` wrote; nil for a damaged archive.
    public required init?(coder: NSCoder) {
        recordType = coder.optionalObject(of: NSString.self, forKey: "recordType") as String?
        super.init(coder: coder)
    }

    override func wire() throws -> WireObject {
        var o = try super.wire()
        o["subscriptionType"] = "database"
        return o
    }
}
