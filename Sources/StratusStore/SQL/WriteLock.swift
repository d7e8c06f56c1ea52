/// An environment's write lock (PostgreSQL's advisory lock on its schema; SQLite has one writer and takes none).
/// Writes to one database hold it shared, so that users' private zones are written at once; a write that may
/// change the whole environment (its schema, every zone) holds it exclusively.
enum WriteLock {
    /// The advisory lock's class (its first key; the second is the schema's name hashed).
    static let lockClass: Int32 = 7_173_002

    /// The lock's function call, for a statement that takes it on its way; nil on SQLite.
    static func call(exclusive: Bool, _ dialect: SQLDialect) -> String? {
        guard dialect == .postgres else { return nil }
        return "\(exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared")(\(lockClass), hashtext(current_schema()))"
    }

    /// Takes the lock for the rest of the transaction.
    static func take(exclusive: Bool, _ s: any SQLSession) throws {
        guard let call = call(exclusive: exclusive, s.dialect) else { return }
        try s.execute("SELECT \(call)", [])
    }

    /// Leaves the transaction's commit unsynced on PostgreSQL (SQLite's is set per connection,
    /// `SQLiteFile.unsyncedWrite`).
    static func unsyncedCommit(_ s: any SQLSession) throws {
        guard s.dialect == .postgres else { return }
        try s.execute("SET LOCAL synchronous_commit = off", [])
    }
}
