import Foundation
import StratusJSON

/// Mirrors `CKDatabaseNotification`: something changed in a database a database subscription watches.
public final class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    /// Mirrors `CKDatabaseNotification.databaseScope`.
    public let databaseScope: CKDatabase.Scope

    init(_ d: WireObject, ck: WireObject, met: WireObject) {
        databaseScope = CKNotification.scope(met["dbs"])
        super.init(type: .database, d, ck: ck, subscriptionID: met["sid"]?.string)
    }
}
