import StratusModel

/// `assets`: each stored content once, by checksum, with how many record values point at it (`refs`, kept in the
/// writing transaction). Every statement on it is here; the content itself is `AssetChunks` (PostgreSQL) or a file.
enum AssetRows {
    enum Column: String, TableColumn { case checksum, size, refs, createdAt = "created_at" }

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
        try s.execute("UPDATE assets SET refs = CASE WHEN refs > 0 THEN refs - 1 ELSE 0 END WHERE checksum = ?", checksum)
    }

    /// Forgets the assets no record refers to and no upload holds, stored before `cutoff`; of `checksum` only when
    /// given. Returns their checksums, whose content goes next.
    static func removeUnreferenced(before cutoff: Int64, checksum: String? = nil, _ s: any SQLSession) throws -> [String] {
        let columns = Selection<Column>([.checksum])
        return try s.all("""
            DELETE FROM assets WHERE \(checksum == nil ? "" : "checksum = ? AND ")refs = 0 AND created_at <= ?
                AND NOT EXISTS (SELECT 1 FROM asset_uploads u WHERE u.checksum = assets.checksum) RETURNING \(columns.sql)
            """, (checksum.map { [$0] } ?? []) + [cutoff]) { NamedRow($0, columns).string(.checksum) }
    }
}
