import StratusModel

/// Counts how many record values point at each stored asset, inside the writing transaction.
enum AssetReferences {
    /// Refuses a value that points at content never uploaded, before anything is written.
    static func check(_ checksum: String, _ s: any SQLSession) throws {
        guard try s.exists("SELECT 1 FROM assets WHERE checksum = ?", [checksum]) else {
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
}
