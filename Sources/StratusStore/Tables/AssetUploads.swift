import StratusModel

/// Uploads not yet attached to a record, each charged to its uploader (`asset_uploads`, in the writing transaction).
///
/// An upload's bytes are spent at once, on disk and against the environment's quota; charged to no one until a
/// record named them, one user's uploads that no record ever used filled the environment for everyone. Now the
/// uploader pays for an upload from the moment it lands (their per-user cap refuses what does not fit), a record of
/// theirs that attaches it takes the charge over (the record's charge includes its assets), and an upload still
/// unattached after `lifetime` is dropped and its content collected (`AssetStore.tendUploads`).
enum AssetUploads {
    enum Column: String, TableColumn { case checksum, uploader, size, expiresAt = "expires_at" }

    /// How long an upload waits for a record: CloudKit's upload URLs live 15 minutes, and a client uploads right
    /// before the save that uses the asset.
    static let lifetime: Int64 = 15 * 60 * 1000

    /// Holds `checksum` for `uploader` until `expiresAt`; the bytes newly charged to them (0 when they held it already).
    static func hold(_ checksum: String, size: Int64, uploader: String, expiresAt: Int64, _ s: any SQLSession) throws -> Int64 {
        let fresh = try s.execute("""
            INSERT INTO asset_uploads(checksum, uploader, size, expires_at) VALUES (?, ?, ?, ?)
            ON CONFLICT(checksum, uploader) DO NOTHING
            """, checksum, uploader, size, expiresAt)
        if fresh == 0 { try s.execute("UPDATE asset_uploads SET expires_at = ? WHERE checksum = ? AND uploader = ?", expiresAt, checksum, uploader) }
        return fresh == 0 ? 0 : size
    }

    /// What `uploader` holds of `checksums` (the bytes a record of theirs that attaches them takes over).
    static func held(_ checksums: Set<String>, by uploader: String, _ s: any SQLSession) throws -> Int64 {
        var total: Int64 = 0
        for c in checksums {
            total += try s.one("SELECT size FROM asset_uploads WHERE checksum = ? AND uploader = ?", [c, uploader]) { NamedRow($0, size).int64(.size) } ?? 0
        }
        return total
    }

    /// Attaches `checksums` that `uploader` holds: their pending rows go, and the bytes they were charged are returned.
    static func attach(_ checksums: Set<String>, by uploader: String, _ s: any SQLSession) throws -> Int64 {
        var freed: Int64 = 0
        for c in checksums {
            freed += try s.one("DELETE FROM asset_uploads WHERE checksum = ? AND uploader = ? RETURNING size", [c, uploader]) { NamedRow($0, size).int64(.size) } ?? 0
        }
        return freed
    }

    /// Drops the uploads that waited too long; each uploader's bytes, to give back.
    static func expire(before now: Int64, _ s: any SQLSession) throws -> [String: Int64] {
        var refunds: [String: Int64] = [:]
        let columns = Selection<Column>([.uploader, .size])
        try s.each("DELETE FROM asset_uploads WHERE expires_at <= ? RETURNING \(columns.sql)", [.int64(now)]) { r in
            let row = NamedRow(r, columns)
            refunds[row.string(.uploader) ?? "", default: 0] += row.int64(.size) ?? 0
        }
        return refunds
    }

    /// Each uploader's held bytes, upload by upload (for counting every user's storage anew).
    /// Uploads past their life at `now` that no record attached: how many, and their bytes.
    static func expired(at now: Int64, _ s: any SQLSession) throws -> (count: Int64, bytes: Int64) {
        try s.one("SELECT COUNT(*) AS count, CAST(COALESCE(SUM(size), 0) AS BIGINT) AS bytes FROM asset_uploads WHERE expires_at <= ?", [now], AssetRows.total)
            ?? (0, 0)
    }

    static func eachHeld(_ s: any SQLSession, _ body: (String, Int64) -> Void) throws {
        let columns = Selection<Column>([.uploader, .size])
        try s.each("SELECT \(columns.sql) FROM asset_uploads", []) { r in
            let row = NamedRow(r, columns)
            body(row.string(.uploader) ?? "", row.int64(.size) ?? 0)
        }
    }

    private static let size = Selection<Column>([.size])
}
