import StratusModel

/// Each database's change counter (`change_counters`, one row per scope and owner). Sync tokens, change tags and
/// zones' `change_seq` come from it, so it must never go back, even when the rows that carried its latest values
/// are deleted: it lives in its own row, not in a max(). See docs/change-ordering.md for why one counter per
/// database keeps every guarantee of the change feeds.
///
/// A database's writes draw from its counter in commit order: the first draw locks its row (PostgreSQL) until the
/// transaction ends, and SQLite has one writer. Writes to different databases — two users' private zones — draw
/// from different rows and do not wait for each other.
///
/// Counters were one per environment (`meta.next_seq`) before; that value is the floor every counter starts from,
/// so a token issued then orders below every change made since.
enum ChangeSequence {
    enum Column: String, TableColumn {
        case scope, owner, value
    }

    private static func counter(_ r: any SQLRow) -> Int64? { NamedRow(r, Selection<Column>([.value])).int64(.value) }

    /// The last value `database` handed out, as this transaction sees it (the floor if it never wrote).
    static func current(_ s: any SQLSession, _ database: DatabaseID) throws -> Int64 {
        if let v = try s.one("SELECT value FROM change_counters WHERE scope = ? AND owner = ?",
                             [database.scope.rawValue, database.ownerRecordName], counter) { return v }
        return try floor(s)
    }

    /// Where every counter starts: the environment-wide counter's last value, frozen since counters became per
    /// database.
    static func floor(_ s: any SQLSession) throws -> Int64 {
        (try Meta.value(s, .nextSeq) ?? 1) - 1
    }

    /// Locks `database`'s counter for the rest of the transaction and returns its last value (made at the floor
    /// when the database has none yet). On PostgreSQL `FOR UPDATE` waits for a write holding the row and then
    /// returns the value it committed (READ COMMITTED reads the newest version of a row it locks).
    ///
    /// A lock makes no new version of the row (an upsert did), so a write leaves one (its `save`), not two: the one
    /// hot row of a busy database stays short to walk. Only a database's first write makes the row.
    ///
    /// `writeLock` (PostgreSQL): the environment's write lock to take first, in the same statement (an InitPlan,
    /// run before the row is read), which saves a round trip per write (see `EnvironmentDatabase.write(in:)`).
    static func lock(_ s: any SQLSession, _ database: DatabaseID, writeLock: String? = nil) throws -> Int64 {
        let args: [SQLValue] = [.text(database.scope.rawValue), .text(database.ownerRecordName)]
        let forUpdate = s.dialect == .postgres ? " FOR UPDATE" : ""
        let read = "SELECT value FROM change_counters WHERE scope = ? AND owner = ?\(forUpdate)"
        let locking = writeLock.map {
            "WITH l AS (SELECT \($0)) SELECT value FROM change_counters WHERE scope = ? AND owner = ? AND EXISTS (SELECT 1 FROM l)\(forUpdate)"
        } ?? read
        if let value = try s.one(locking, args, counter) { return value }
        // The write lock is held already: the InitPlan ran before the read found no row.
        try s.enqueue("""
            INSERT INTO change_counters(scope, owner, value) VALUES (?, ?, \(Meta.column(.nextSeq)) - 1)
            ON CONFLICT(scope, owner) DO NOTHING
            """, args)
        return try s.one(read, args, counter) ?? 0
    }

    /// The counters of `owners`' private databases: where each owner's changes stand in a shared-database feed.
    static func privateCounters(_ s: any SQLSession, owners: some Sequence<String>) throws -> [String: Int64] {
        let floor = try floor(s)
        var out: [String: Int64] = [:]
        for owner in Set(owners) {
            out[owner] = try s.one("SELECT value FROM change_counters WHERE scope = ? AND owner = ?",
                                   [DatabaseScope.private.rawValue, owner], counter) ?? floor
        }
        return out
    }

    /// Each database with zones: the highest change its zones and change log hold, and its counter (nil when it
    /// never wrote since counters became per database). One statement, so one moment (`stratus check`).
    static func standing(_ s: any SQLSession) throws -> [(scope: String, owner: String, highest: Int64,
                                                          counter: Int64?)] {
        let database = Selection<ZoneRow.Column>([.scope, .owner], as: "z")
        return try s.all("""
            SELECT \(database.sql), MAX(z.change_seq) AS zone_seq, MAX(l.seq) AS log_seq, MAX(c.value) AS counter FROM zones z
            LEFT JOIN (SELECT zone_id, MAX(seq) AS seq FROM record_log GROUP BY zone_id) l ON l.zone_id = z.id
            LEFT JOIN change_counters c ON c.scope = z.scope AND c.owner = z.owner
            GROUP BY z.scope, z.owner
            """, []) { r in
            let row = NamedRow(r, database), seqs = NamedRow(r, Selection<StandingColumn>([.zoneSeq, .logSeq,
                    .counter]), offset: row.end)
            return (row.string(.scope) ?? "", row.string(.owner) ?? "", max(seqs.int64(.zoneSeq) ?? 0,
                    seqs.int64(.logSeq) ?? 0), seqs.int64(.counter))
        }
    }

    /// What `standing` reads past the database's columns.
    enum StandingColumn: String, TableColumn {
        case zoneSeq = "zone_seq", logSeq = "log_seq", counter
    }

    /// Stores `database`'s counter's last value handed out (queued: the write's next statement sends it).
    static func store(_ last: Int64, _ database: DatabaseID, _ s: any SQLSession) throws {
        try s.enqueue("UPDATE change_counters SET value = ? WHERE scope = ? AND owner = ?", last,
                      database.scope.rawValue, database.ownerRecordName)
    }

    /// Moves every zone's change token on (a schema reset: every client refetches), each from its own database's
    /// counter. Only an exclusive write may, since it locks every counter.
    static func bumpEveryZone(_ s: any SQLSession) throws {
        for database in try ZoneRow.databases(s) {
            var counter = try SequenceAllocator(s, database)
            try ZoneRow.setChangeSeq(s, database, counter.next())
            try counter.save(s)
        }
    }

    /// CloudKit's change tags are short opaque strings; base 36 of the sequence keeps them short.
    static func changeTag(_ seq: Int64) -> String { String(seq, radix: 36) }
}
