import StratusModel

/// `assets`: each stored content once, by checksum, with how many record values point at it (`refs`, kept in the
/// writing transaction). Every statement on it is here; the content itself is `AssetChunks` (PostgreSQL) or a file.
enum AssetRows {
    enum Column: String, TableColumn { case checksum, size, refs, createdAt = "created_at" }

    /// How many rows a total counts and the bytes they hold.
    enum TotalColumn: String, TableColumn { case count, bytes }

    static func total(_ r: any SQLRow) -> (count: Int64, bytes: Int64) {
        let row = NamedRow(r, Selection<TotalColumn>([.count, .bytes]))
        return (row.int64(.count) ?? 0, row.int64(.bytes) ?? 0)
    }

    /// Every stored content's checksum (only those records still name, with `referencedOnly`).
    static func checksums(referencedOnly: Bool = false, _ s: any SQLSession) throws -> [String] {
        try s.all("SELECT checksum FROM assets\(referencedOnly ? " WHERE refs > 0" : "")", []) { NamedRow($0,
                Selection<Column>([.checksum])).string(.checksum) }
    }

    /// Every stored content's reference count, by checksum.
    static func references(_ s: any SQLSession) throws -> [String: Int64] {
        let columns = Selection<Column>([.checksum, .refs])
        return Dictionary(try s.all("SELECT \(columns.sql) FROM assets") { r in
            let row = NamedRow(r, columns)
            return row.string(.checksum).map { ($0, row.int64(.refs) ?? 0) }
        }, uniquingKeysWith: { a, _ in a })
    }

    /// Content no record uses and no upload waits to attach, stored before `cutoff`: how much, and its bytes.
    static func orphans(before cutoff: Int64, _ s: any SQLSession) throws -> (count: Int64, bytes: Int64) {
        try s.one("""
            SELECT COUNT(*) AS count, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes FROM assets WHERE refs = 0 AND created_at <= ?
                AND NOT EXISTS (SELECT 1 FROM asset_uploads u WHERE u.checksum = assets.checksum)
            """, [cutoff], total) ?? (0, 0)
    }

    /// Whether the content is stored.
    /// The bytes of every asset kept.
    static func totalSize(_ s: any SQLSession) throws -> Int64 {
        try s.int64("SELECT CAST(COALESCE(SUM(size), 0) AS BIGINT) FROM assets") ?? 0
    }

    static func exists(_ checksum: String, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM assets WHERE checksum = ?", [checksum])
    }

    /// Records an upload's content (again: its time moves, so a collection spares it as fresh).
    static func upsert(_ checksum: String, size: Int, at now: Int64, _ s: any SQLSession) throws {
        try s.execute("""
            INSERT INTO assets(checksum, size, refs, created_at) VALUES (?, ?, 0, ?)
            ON CONFLICT(checksum) DO UPDATE SET created_at = excluded.created_at
            """, checksum, size, now)
    }

    /// Refuses a value that points at content never uploaded, before anything is written.
    static func check(_ checksum: String, _ s: any SQLSession) throws {
        guard try exists(checksum, s) else {
            throw StratusError.badRequest("asset \(checksum.prefix(64)) was never uploaded: upload its content first")
        }
    }

    static func retain(_ checksum: String, _ s: any SQLSession) throws {
        guard try s.execute("UPDATE assets SET refs = refs + 1 WHERE checksum = ?", checksum) == 1 else {
            throw StratusError.badRequest("asset \(checksum.prefix(64)) was never uploaded: upload its content first")
        }
    }

    static func release(_ checksum: String, _ s: any SQLSession) throws {
        try s.execute("UPDATE assets SET refs = CASE WHEN refs > 0 THEN refs - 1 ELSE 0 END WHERE checksum = ?",
                      checksum)
    }

    /// Forgets the assets no record refers to and no upload holds, stored before `cutoff`; of `checksum` only when
    /// given. Returns their checksums, whose content goes next.
    static func removeUnreferenced(before cutoff: Int64, checksum: String? = nil,
                                   _ s: any SQLSession) throws -> [String] {
        let columns = Selection<Column>([.checksum])
        return try s.all("""
            DELETE FROM assets WHERE \(checksum == nil ? "" : "checksum = ? AND ")refs = 0 AND created_at <= ?
                AND NOT EXISTS (SELECT 1 FROM asset_uploads u WHERE u.checksum = assets.checksum) RETURNING \(columns.sql)
            """, (checksum.map { [$0] } ?? []) + [cutoff]) { NamedRow($0, columns).string(.checksum) }
    }
}
