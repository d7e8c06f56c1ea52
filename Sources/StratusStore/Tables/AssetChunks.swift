import Foundation

/// `asset_chunks`: an asset's content on PostgreSQL, in numbered chunks (SQLite environments keep files).
enum AssetChunks {
    enum Column: String, TableColumn { case checksum, n, bytes }

    /// Whether the content is stored.
    static func exists(_ checksum: String, _ s: any SQLSession) throws -> Bool {
        try s.exists("SELECT 1 FROM asset_chunks WHERE checksum = ? AND n = 0", [checksum])
    }

    static func insert(_ checksum: String, n: Int, _ bytes: Data, _ s: any SQLSession) throws {
        try s.execute("INSERT INTO asset_chunks(checksum, n, bytes) VALUES (?, ?, ?)", checksum, n, bytes)
    }

    /// The content's chunks, in order.
    static func chunks(_ checksum: String, _ s: any SQLSession) throws -> [Data] {
        let columns = Selection<Column>([.bytes])
        return try s.all("SELECT \(columns.sql) FROM asset_chunks WHERE checksum = ? ORDER BY n",
                         [checksum]) { NamedRow($0, columns).data(.bytes) }
    }

    /// The content's first `count` bytes.
    static func prefix(_ checksum: String, count: Int, _ s: any SQLSession) throws -> Data? {
        try s.one("SELECT substring(bytes FROM 1 FOR CAST(? AS INTEGER)) AS bytes FROM asset_chunks WHERE checksum = ? AND n = 0", [count, checksum]) {
            NamedRow($0, Selection<Column>([.bytes])).data(.bytes)
        }
    }

    static func remove(_ checksum: String, _ s: any SQLSession) throws {
        try s.execute("DELETE FROM asset_chunks WHERE checksum = ?", checksum)
    }
}
